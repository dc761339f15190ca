"""An instructor adds three draws from a pool to a quiz from the admin, in real Chromium: the
quiz's page links to the form, the form adds the items, and the quiz's items list them."""

import pytest

from tests.browser.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_instructor_adds_draws_from_a_pool(page, live_server):
    from tests.courses.test_admin_pools import pool_with
    from tests.factories import InstructorFactory, QuizFactory

    instructor = InstructorFactory(username="ada")
    instructor.set_password(PASSWORD)
    instructor.save()
    quiz = QuizFactory(title="Scaling check")
    pool = pool_with(quiz.lesson, questions=4)
    page.goto(f"{live_server.url}/admin/login/?next=/admin/courses/quiz/{quiz.pk}/change/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Draw k members from a pool").click()
    page.get_by_label("Pool").select_option(str(pool.pk))
    page.get_by_label("How many to draw").fill("5")
    page.get_by_label("Points each").fill("2")
    page.get_by_role("button", name="Add the draws").click()
    # Five from a pool of four: refused on the page, nothing added.
    refused = page.locator("[data-draws-refused]")
    assert "which has 4 members" in refused.inner_text()
    assert not quiz.items.exists()
    page.get_by_label("How many to draw").fill("3")
    page.get_by_role("button", name="Add the draws").click()
    page.wait_for_url(f"{live_server.url}/admin/courses/quiz/{quiz.pk}/change/")
    assert "Added 3 items drawing from “Warm-up pool”." in page.locator(".messagelist").inner_text()
    assert list(quiz.items.values_list("pool_id", "points")) == [(pool.pk, 2)] * 3
    # The quiz's items, as its page shows them: three rows naming the pool.
    rows = page.locator("#items-group tbody tr.has_original")
    assert rows.count() == 3
