"""The learner's pages for accounts, home progress, practice and history."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from courses.models import Problem
from grading.forms import SignupForm
from grading.models import PracticeStreak, Response, Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import (
    practice_answer_submit,
    practice_variant_current,
    practice_variant_new,
)
from integrations.models import Integration
from integrations.services import learner_provision
from tests.factories import UserFactory
from tests.grading.test_services import answer_of, mistake_of

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


def token_in(html: str) -> str:
    return re.search(r'name="token" value="([^"]+)"', html).group(1)


def practice_url(slug: str = "dot-variance") -> str:
    return reverse("practice", kwargs={"slug": slug})


def variant_with_mistake(learner, code: str, slug: str = "dot-variance") -> Variant:
    """The learner's current practice variant, replaced until it can show the given mistake."""
    problem = Problem.objects.get(slug=slug)
    variant = practice_variant_current(user=learner, problem=problem)
    while mistake_of(variant, code) is None:
        variant = practice_variant_new(user=learner, problem=problem)
    return variant


def submit_practice(client, variant: Variant, text: str, token: str = ""):
    page = client.get(practice_url(variant.problem.slug)).content.decode()
    return client.post(
        practice_url(variant.problem.slug),
        {"variant": variant.pk, "answer": text, "token": token or token_in(page)},
    )


# --- accounts ---------------------------------------------------------------------------------


def test_signup_creates_an_account_logs_in_and_follows_next(client, shipped_bank):
    page = client.get(reverse("signup"))
    assert page.status_code == 200
    assert 'name="csrfmiddlewaretoken"' in page.content.decode()
    target = reverse("practice", kwargs={"slug": "dot-variance"})
    response = client.post(
        reverse("signup") + f"?next={target}",
        {
            "username": "ada",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
            "next": target,
        },
    )
    assert response.status_code == 302
    assert response.url == target
    assert get_user_model().objects.filter(username="ada").exists()
    assert client.get(target).status_code == 200


def test_signup_refuses_a_foreign_next_and_bad_passwords(client, db):
    response = client.post(
        reverse("signup"),
        {"username": "bob", "password1": "x", "password2": "y", "next": "https://elsewhere.test/"},
    )
    assert response.status_code == 200
    assert "didn’t match" in response.content.decode() or "match" in response.content.decode()
    assert not get_user_model().objects.filter(username="bob").exists()
    response = client.post(
        reverse("signup"),
        {
            "username": "bob",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
            "next": "https://elsewhere.test/",
        },
    )
    assert response.url == reverse("home")


def test_signup_refuses_a_name_already_taken_with_a_message(client, learner):
    response = client.post(
        reverse("signup"),
        {"username": learner.username.upper(), "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200
    assert "A user with that username already exists." in response.content.decode()
    assert get_user_model().objects.filter(username__iexact=learner.username).count() == 1


@pytest.mark.parametrize(
    "username", ["lti-3f9a1c", "LTI-3f9a1c", "Lti-ada", "lms1-4be0", "LMS42-ada", "lms7-"]
)
def test_signup_refuses_user_names_kept_for_lms_learners(client, db, username):
    response = client.post(
        reverse("signup"),
        {"username": username, "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "kept for the accounts of learners who come from an LMS" in page
    assert "choose another user name" in page
    assert not get_user_model().objects.filter(username__iexact=username).exists()
    assert "_auth_user_id" not in client.session


def test_signup_refuses_the_names_softgrade_gives_provisioned_learners(client, db):
    integration = Integration.objects.create(name="Campus LMS")
    learner, _ = learner_provision(integration=integration, external_id="student-1")
    form = SignupForm(
        {"username": learner.user.username + "x", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert not form.is_valid()
    assert form.errors.as_data()["username"][0].code == "reserved_username"


@pytest.mark.parametrize("username", ["ltiada", "lti_ada", "lms-ada", "lmsada-1", "ada-lti-1"])
def test_signup_accepts_names_that_only_look_alike(client, db, username):
    response = client.post(
        reverse("signup"),
        {"username": username, "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username=username).exists()


def test_login_logout_and_password_change(client, learner):
    page = client.get(reverse("login")).content.decode()
    assert 'for="id_username"' in page
    assert 'for="id_password"' in page
    response = client.post(reverse("login"), {"username": learner.username, "password": PASSWORD})
    assert response.status_code == 302
    home = client.get(reverse("home")).content.decode()
    assert "Log out" in home
    assert f'action="{reverse("logout")}"' in home  # logging out is a POST form
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "another long phrase 7",
            "new_password2": "another long phrase 7",
        },
    )
    assert response.status_code == 302
    assert client.get(response.url).status_code == 200
    client.post(reverse("logout"))
    assert "Log in" in client.get(reverse("home")).content.decode()
    assert client.login(username=learner.username, password="another long phrase 7")


def test_practice_and_quizzes_need_an_account_but_lessons_do_not(client, shipped_bank):
    lesson = reverse("lesson-detail", kwargs={"slug": "scaled-dot-product-attention"})
    assert client.get(lesson).status_code == 200
    for url in (
        practice_url(),
        reverse("practice-lesson", kwargs={"slug": "scaled-dot-product-attention"}),
        reverse("quiz-detail", kwargs={"slug": "attention-exam"}),
        reverse("history"),
    ):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response.url.startswith(reverse("login"))
    assert not Variant.objects.exists()


# --- home and history -------------------------------------------------------------------------


def test_home_shows_the_learners_progress(learner_client, learner, shipped_bank):
    problem = Problem.objects.get(slug="dot-variance")
    for _ in range(PracticeStreak.MASTERY):
        variant = practice_variant_new(user=learner, problem=problem)
        practice_answer_submit(user=learner, variant=variant, text=answer_of(variant))
    html = learner_client.get(reverse("home")).content.decode()
    total = Problem.objects.count()
    assert f"1 of {total} problems mastered" in html
    assert "not taken yet" in html


def test_home_query_count_does_not_grow_with_attempts(
    learner_client, learner, shipped_bank, django_assert_max_num_queries
):
    from courses.models import Quiz

    quiz = Quiz.objects.get(slug="attention-practice")
    for _ in range(5):
        attempt_submit(attempt=attempt_start(user=learner, quiz=quiz))
    # One of them for the learner's overdue attempts, closed first (none here).
    with django_assert_max_num_queries(10):
        learner_client.get(reverse("home"))


def test_history_lists_attempts_and_streaks(
    learner_client, learner, shipped_bank, django_assert_max_num_queries
):
    from courses.models import Quiz

    quiz = Quiz.objects.get(slug="attention-practice")
    for _ in range(4):
        attempt_submit(attempt=attempt_start(user=learner, quiz=quiz))
    for problem in Problem.objects.all()[:5]:
        variant = practice_variant_new(user=learner, problem=problem)
        practice_answer_submit(user=learner, variant=variant, text="1")
    with django_assert_max_num_queries(6):
        html = learner_client.get(reverse("history")).content.decode()
    assert html.count("(results)") == 4
    assert "Variance of a dot product" in html


# --- practice ---------------------------------------------------------------------------------


def test_practice_page_shows_the_givens_in_math_and_the_syntax_hint(learner_client, shipped_bank):
    html = learner_client.get(practice_url()).content.decode()
    assert "<math" in html
    assert 'for="id_answer"' in html
    assert "sqrt(64)" in html  # the syntax hint
    assert "within 1% of the correct value" in html
    assert 'name="csrfmiddlewaretoken"' in html


def test_a_wrong_answer_names_the_misconception_from_the_database(
    learner_client, learner, shipped_bank
):
    variant = variant_with_mistake(learner, "std-for-variance")
    response = submit_practice(learner_client, variant, mistake_of(variant, "std-for-variance"))
    assert response.status_code == 302
    assert response.url.endswith("#verdict")
    html = learner_client.get(response.url).content.decode()
    assert "Not correct" in html
    assert "Standard deviation given for a variance" in html  # the misconception's title
    assert "Square the standard deviation to get the variance" in html  # its explanation
    assert "within 1% of the correct value" in html
    assert PracticeStreak.objects.get(user=learner).current == 0


def test_a_correct_answer_on_fresh_numbers_grows_the_streak(learner_client, learner, shipped_bank):
    problem = Problem.objects.get(slug="dot-variance")
    for expected in (1, 2):
        variant = practice_variant_current(user=learner, problem=problem)
        submit_practice(learner_client, variant, answer_of(variant))
        html = learner_client.get(practice_url()).content.decode()
        assert "Correct" in html
        assert re.search(rf"<strong>{expected}</strong> in a row", html)
        assert "Next variant" in html
        learner_client.post(
            reverse("practice-new", kwargs={"slug": "dot-variance"}), {"replaces": variant.pk}
        )


def test_invalid_input_shows_the_parser_message_and_costs_no_try(
    learner_client, learner, shipped_bank
):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_current(user=learner, problem=problem)
    submit_practice(learner_client, variant, "9^9^9")
    html = learner_client.get(practice_url()).content.decode()
    assert "We could not read that answer. It cost no try." in html
    assert "too large" in html
    assert "not tried yet" in html
    assert 'value="9^9^9"' in html  # kept in the box to fix
    assert not PracticeStreak.objects.filter(user=learner).exists()
    submit_practice(learner_client, variant, answer_of(variant))
    assert PracticeStreak.objects.get(user=learner).current == 1


def test_an_empty_answer_is_refused_by_the_form_and_records_nothing(
    learner_client, learner, shipped_bank
):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_current(user=learner, problem=problem)
    response = submit_practice(learner_client, variant, "")
    assert response.status_code == 200
    assert "Enter an answer before checking it." in response.content.decode()
    assert 'aria-invalid="true"' in response.content.decode()
    assert not Response.objects.exists()


def test_a_double_click_records_one_try(learner_client, learner, shipped_bank):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_current(user=learner, problem=problem)
    page = learner_client.get(practice_url()).content.decode()
    token = token_in(page)
    for _ in range(2):
        response = submit_practice(learner_client, variant, "12345", token=token)
        assert response.status_code == 302
    assert Response.objects.filter(variant=variant).count() == 1
    # A refresh of the page after the redirect makes a new token: the next answer is a new try.
    assert token_in(learner_client.get(practice_url()).content.decode()) != token


def test_a_reused_token_with_another_answer_is_refused_with_a_message(
    learner_client, learner, shipped_bank
):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_current(user=learner, problem=problem)
    token = token_in(learner_client.get(practice_url()).content.decode())
    submit_practice(learner_client, variant, "12345", token=token)
    response = submit_practice(learner_client, variant, "54321", token=token)
    html = learner_client.get(response.url).content.decode()
    assert "already used to send a different answer, so nothing was recorded" in html
    assert Response.objects.filter(variant=variant).count() == 1


def test_new_variant_is_made_once_per_click_and_only_for_the_current_one(
    learner_client, learner, shipped_bank
):
    problem = Problem.objects.get(slug="dot-variance")
    first = practice_variant_current(user=learner, problem=problem)
    url = reverse("practice-new", kwargs={"slug": "dot-variance"})
    for _ in range(2):
        assert learner_client.post(url, {"replaces": first.pk}).status_code == 302
    assert Variant.objects.filter(user=learner, problem=problem).count() == 2
    assert learner_client.get(url).status_code == 405


def test_another_learners_variant_is_404_and_unchanged(learner_client, shipped_bank):
    other = UserFactory()
    problem = Problem.objects.get(slug="dot-variance")
    theirs = practice_variant_new(user=other, problem=problem)
    response = learner_client.post(
        practice_url(), {"variant": theirs.pk, "answer": "1", "token": "t"}
    )
    assert response.status_code == 404
    assert not Response.objects.exists()


def test_unknown_problem_is_404(learner_client, db):
    assert learner_client.get(practice_url("nope")).status_code == 404


def test_vector_answers_mark_the_wrong_entries(learner_client, learner, shipped_bank):
    problem = Problem.objects.get(slug="softmax")
    variant = practice_variant_current(user=learner, problem=problem)
    family_answer = answer_of(variant)
    entries = family_answer.strip("[]").split(", ")
    entries[0] = "0.999"
    submit_practice(learner_client, variant, "[" + ", ".join(entries) + "]")
    html = learner_client.get(practice_url("softmax")).content.decode()
    assert "entry-wrong" in html
    assert html.count("entry-wrong") >= 1
    assert "(wrong)" in html


def test_practice_lesson_lists_problems_with_streaks(
    learner_client, learner, shipped_bank, django_assert_max_num_queries
):
    url = reverse("practice-lesson", kwargs={"slug": "scaled-dot-product-attention"})
    with django_assert_max_num_queries(6):
        html = learner_client.get(url).content.decode()
    for problem in Problem.objects.all():
        assert reverse("practice", kwargs={"slug": problem.slug}) in html


def test_practice_page_query_count_is_bounded(
    learner_client, learner, shipped_bank, django_assert_max_num_queries
):
    problem = Problem.objects.get(slug="dot-variance")
    variant = practice_variant_current(user=learner, problem=problem)
    for n in range(6):
        practice_answer_submit(user=learner, variant=variant, text=str(1000 + n))
    # Session, user, problem, exam in progress, variant, its tries, streak, the variant's
    # solution reveal, the problem again for the sidebar, and whether the learner teaches a
    # course (the navigation's "Teaching" link): however many tries there are.
    with django_assert_max_num_queries(10):
        learner_client.get(practice_url())
