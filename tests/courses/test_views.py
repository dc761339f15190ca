import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_home_lists_the_course_and_its_lesson(client, shipped_bank):
    html = client.get(reverse("home")).content.decode()
    assert "Attention math" in html
    assert reverse("lesson-detail", kwargs={"slug": "scaled-dot-product-attention"}) in html


def test_home_without_content_says_how_to_get_it(client):
    html = client.get(reverse("home")).content.decode()
    assert "import_bank" in html


def test_lesson_page_renders_math_and_glossary(client, shipped_bank):
    url = reverse("lesson-detail", kwargs={"slug": "scaled-dot-product-attention"})
    html = client.get(url).content.decode()
    assert "<math" in html
    assert "$$" not in html
    assert 'id="term-variance"' in html
    assert 'href="#term-variance"' in html


def test_lesson_title_shows_math_on_the_page_and_as_text_in_the_title_bar(client, shipped_bank):
    url = reverse("lesson-detail", kwargs={"slug": "scaled-dot-product-attention"})
    html = client.get(url).content.decode()
    title = re.search(r"<title>(.*?)</title>", html).group(1)
    assert title == "Scaled dot-product attention: why we divide by √dₖ · softgrade"
    heading = re.search(r"<h1>(.*?)</h1>", html, re.S).group(1)
    assert heading.startswith("Scaled dot-product attention: why we divide by <math")
    assert "<msqrt><mrow><msub><mi>d</mi><mi>k</mi></msub></mrow></msqrt>" in heading
    # The summary's formulas too; no source left anywhere on the page outside code.
    assert "variance <math" in html
    assert "$" not in re.sub(r"<code>.*?</code>", "", html, flags=re.S)
    assert "d_k" not in html


def test_unknown_lesson_is_404(client):
    assert client.get(reverse("lesson-detail", kwargs={"slug": "nope"})).status_code == 404


def test_pages_send_a_content_security_policy(client, shipped_bank):
    response = client.get(reverse("home"))
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy


LESSON = "scaled-dot-product-attention"


def test_lesson_page_links_to_practice_and_quizzes_and_invites_anonymous_visitors(
    client, shipped_bank
):
    html = client.get(reverse("lesson-detail", kwargs={"slug": LESSON})).content.decode()
    assert reverse("practice", kwargs={"slug": "dot-variance"}) in html
    assert reverse("quiz-detail", kwargs={"slug": "attention-exam"}) in html
    assert reverse("practice-lesson", kwargs={"slug": LESSON}) in html
    assert "Sign up" in html
    assert f"?next=/lessons/{LESSON}/" in html


def test_lesson_page_carries_the_explorer_and_a_note_for_browsers_without_script(
    client, shipped_bank
):
    html = client.get(reverse("lesson-detail", kwargs={"slug": LESSON})).content.decode()
    assert 'id="explorer"' in html
    assert 'type="range"' in html
    assert 'role="switch"' in html
    assert 'aria-live="polite"' in html
    assert "The explorer needs JavaScript" in html
    assert 'src="/static/js/explorer.js"' in html
    assert "data-explorer-controls hidden" in html  # shown by the script only


@pytest.mark.parametrize("name", ["home", "lesson", "signup", "login"])
def test_pages_have_no_inline_script_or_style_the_policy_would_block(client, shipped_bank, name):
    url = {
        "home": reverse("home"),
        "lesson": reverse("lesson-detail", kwargs={"slug": LESSON}),
        "signup": reverse("signup"),
        "login": reverse("login"),
    }[name]
    html = client.get(url).content.decode()
    assert " style=" not in html
    assert "<style" not in html
    assert " on" + "click=" not in html
    for script in re.findall(r"<script[^>]*>", html):
        assert "src=" in script or 'type="application/json"' in script


def test_lesson_page_costs_a_fixed_number_of_queries(
    client, shipped_bank, django_assert_num_queries
):
    with django_assert_num_queries(4):
        client.get(reverse("lesson-detail", kwargs={"slug": LESSON}))


def test_home_costs_a_fixed_number_of_queries_for_visitors(
    client, shipped_bank, django_assert_num_queries
):
    with django_assert_num_queries(4):
        client.get(reverse("home"))


def test_lesson_page_puts_the_explorer_after_the_paragraph_that_links_to_it(client, shipped_bank):
    html = client.get("/lessons/scaled-dot-product-attention/").content.decode()
    link = html.index('<a href="#explorer">the softmax saturation explorer</a>')
    explorer = html.index('<section class="explorer" id="explorer"')
    assert link < explorer
    between = html[link:explorer]
    assert between.count("</p>") == 1  # only the end of that paragraph
    assert "<h2" not in between
    assert html.index("Why saturation stops learning") > explorer
