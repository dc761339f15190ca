"""What softgrade calls its content in an LMS gradebook: plain text, never formula source."""

from __future__ import annotations

import pytest

from courses.models import Lesson, Quiz
from lti.content import content_line_item

pytestmark = pytest.mark.django_db


def test_gradebook_labels_write_a_titles_math_as_unicode(shipped_bank):
    exam = content_line_item(Quiz.objects.get(slug="attention-exam"))
    assert exam.label == "Check: why we divide by √dₖ"
    assert exam.resource_id == "quiz:attention-exam"
    practice = content_line_item(Lesson.objects.get(slug="scaled-dot-product-attention"))
    assert practice.label == "Practice: Scaled dot-product attention: why we divide by √dₖ"
