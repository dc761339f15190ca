"""The form of the accommodations page. It reads what was sent and finds the quiz and the
learner; whether the terms may be given is the service's decision
(grading/services/accommodations.py), whose refusals the page shows beside each field."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from accounts.fields import LocalDateTimeField, zone_label
from courses.models import Course, Quiz
from grading.accommodation_models import REASON_MAX_LENGTH, QuizAccommodation
from grading.services.accommodations import AccommodationTerms


class AccommodationForm(forms.Form):
    """A quiz of the course, a learner by username, and what they get."""

    quiz = forms.ModelChoiceField(queryset=Quiz.objects.none(), label="Quiz")
    learner = forms.CharField(label="Learner's username", max_length=150)
    extra_minutes = forms.IntegerField(
        label="Extra minutes", min_value=0, initial=0, help_text="Added to the time limit."
    )
    extra_attempts = forms.IntegerField(
        label="Extra attempts", min_value=0, initial=0, help_text="Added to the attempt limit."
    )
    closes_at = LocalDateTimeField(
        label="Own due date",
        required=False,
        help_text="In place of the quiz's closing time, for this learner only. Empty: the quiz's.",
    )
    reason = forms.CharField(
        label="Reason",
        required=False,
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Kept with the accommodation, with who set it and when.",
    )

    def __init__(self, *args, course: Course, editing: QuizAccommodation | None = None, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)
        # Typed in the instructor's own zone, which the label names.
        self.fields["closes_at"].label = zone_label("Own due date")
        self.fields["quiz"].queryset = Quiz.objects.filter(lesson__course=course).order_by(
            "lesson__order", "title"
        )
        if editing is not None:
            # Editing changes the terms, never whose or which quiz's they are.
            self.fields["quiz"].disabled = True
            self.fields["learner"].disabled = True
            self.initial.update(
                {
                    "quiz": editing.quiz_id,
                    "learner": editing.learner.get_username(),
                    "extra_minutes": editing.extra_minutes,
                    "extra_attempts": editing.extra_attempts,
                    "closes_at": editing.closes_at,
                    "reason": editing.reason,
                }
            )

    def clean_learner(self):
        username = self.cleaned_data["learner"].strip()
        user_model = get_user_model()
        learner = user_model.objects.filter(
            **{user_model.USERNAME_FIELD: username}, is_active=True
        ).first()
        if learner is None:
            raise forms.ValidationError(f"No active learner with the username “{username}”.")
        return learner

    def terms(self) -> AccommodationTerms:
        data = self.cleaned_data
        return AccommodationTerms(
            extra_minutes=data["extra_minutes"],
            extra_attempts=data["extra_attempts"],
            closes_at=data["closes_at"],
            reason=data["reason"],
        )
