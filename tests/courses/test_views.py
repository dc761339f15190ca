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


def test_unknown_lesson_is_404(client):
    assert client.get(reverse("lesson-detail", kwargs={"slug": "nope"})).status_code == 404


def test_pages_send_a_content_security_policy(client, shipped_bank):
    response = client.get(reverse("home"))
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy
