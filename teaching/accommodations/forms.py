"""The form of the accommodations page. It reads what was sent and finds the quiz and the
learner; whether the terms may be given is the service's decision
(grading/services/accommodations.py), whose refusals the page shows beside each field."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.fields import LocalDateTimeField, zone_label
from courses.models import Course, Quiz
from grading.accommodation_models import REASON_MAX_LENGTH, QuizAccommodation
from grading.services.accommodations import AccommodationTerms
from teaching.accommodations.learners import LearnerNotFound, course_learner


class AccommodationForm(forms.Form):
    """A quiz of the course, one of its learners (by name or username), and what they get."""

    quiz = forms.ModelChoiceField(queryset=Quiz.objects.none(), label=_("Quiz"))
    learner = forms.CharField(
        label=_("Learner"),
        max_length=300,
        help_text=_(
            "A learner of the course: their username, or their name or part of it "
            "(any case). Pick from the suggestions, or find them with the search above."
        ),
        # The suggestions list (static/js/learner-search.js fills it from the course's learners).
        widget=forms.TextInput(attrs={"list": "learner-options", "autocomplete": "off"}),
    )
    extra_minutes = forms.IntegerField(
        label=_("Extra minutes"), min_value=0, initial=0, help_text=_("Added to the time limit.")
    )
    extra_attempts = forms.IntegerField(
        label=_("Extra attempts"),
        min_value=0,
        initial=0,
        help_text=_("Added to the attempt limit."),
    )
    closes_at = LocalDateTimeField(
        label=_("Own due date"),
        required=False,
        help_text=_(
            "In place of the quiz's closing time, for this learner only. Empty: the quiz's."
        ),
    )
    reason = forms.CharField(
        label=_("Reason"),
        required=False,
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Kept with the accommodation, with who set it and when."),
    )

    def __init__(self, *args, course: Course, editing: QuizAccommodation | None = None, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)
        self.course, self.editing = course, editing
        # Typed in the instructor's own zone, which the label names.
        self.fields["closes_at"].label = zone_label(gettext("Own due date"))
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
        if self.editing is not None:
            return self.editing.learner
        try:
            return course_learner(course=self.course, text=self.cleaned_data["learner"])
        except LearnerNotFound as problem:
            raise forms.ValidationError(str(problem)) from None

    def terms(self) -> AccommodationTerms:
        data = self.cleaned_data
        return AccommodationTerms(
            extra_minutes=data["extra_minutes"],
            extra_attempts=data["extra_attempts"],
            closes_at=data["closes_at"],
            reason=data["reason"],
        )
