"""A new item of a quiz starts at the next order: after the quiz's last item, on the quiz's
change page and its add page, and for every extra row."""

import re

import pytest
from django.forms import inlineformset_factory
from django.urls import reverse

from courses.admin import QuizItemInlineFormSet
from courses.models import Quiz, QuizItem
from courses.quiz_items_admin import next_item_order
from tests.factories import InstructorFactory, QuizFactory, QuizItemFactory

pytestmark = pytest.mark.django_db


def blank_row_order(html: str) -> str:
    """The order the admin's blank row (the one "Add another" copies) starts with."""
    found = re.search(r'name="items-__prefix__-order"[^>]*value="(\d+)"', html) or re.search(
        r'value="(\d+)"[^>]*name="items-__prefix__-order"', html
    )
    assert found, "no blank item row"
    return found.group(1)


def test_the_next_order_follows_the_last_item():
    quiz = QuizFactory()
    assert next_item_order(quiz) == 1
    QuizItemFactory(quiz=quiz, order=3)
    QuizItemFactory(quiz=quiz, order=7)
    QuizItemFactory(order=40)  # another quiz's
    assert next_item_order(quiz) == 8
    assert next_item_order(None) == 1


def test_the_change_page_s_blank_row_starts_at_the_next_order(client):
    quiz = QuizFactory()
    QuizItemFactory(quiz=quiz, order=0)
    QuizItemFactory(quiz=quiz, order=4)
    client.force_login(InstructorFactory())
    html = client.get(reverse("admin:courses_quiz_change", args=[quiz.pk])).content.decode()
    assert blank_row_order(html) == "5"


def test_the_add_page_s_blank_row_starts_at_one(client):
    client.force_login(InstructorFactory())
    assert blank_row_order(client.get(reverse("admin:courses_quiz_add")).content.decode()) == "1"


def test_extra_rows_count_up_from_the_next_order():
    quiz = QuizFactory()
    QuizItemFactory(quiz=quiz, order=2)
    made = inlineformset_factory(
        Quiz, QuizItem, formset=QuizItemInlineFormSet, fields=["order", "question"], extra=3
    )
    formset = made(instance=quiz)
    extra = formset.forms[formset.initial_form_count() :]
    assert [form.initial["order"] for form in extra] == [3, 4, 5]
    assert formset.empty_form.initial["order"] == 6
