"""Accommodations in the admin: the same rules and audit as the teaching pages, since every
change goes through grading/services/accommodations.py (who may, what may be given, who set it,
an attempt in progress following at once). Imported by grading/admin.py."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.admin_times import ZONED_DATE_TIMES
from grading.accommodation_models import QuizAccommodation
from grading.overrides import may_change_scores
from grading.services.accommodations import (
    AccommodationTerms,
    accommodation_problems,
    accommodation_remove,
    accommodation_set,
)

FIELDS = ["quiz", "learner", "extra_minutes", "extra_attempts", "closes_at", "reason"]


class QuizAccommodationForm(forms.ModelForm):
    acting_user = None  # set per request by QuizAccommodationAdmin.get_form

    class Meta:
        model = QuizAccommodation
        fields = FIELDS

    def terms(self) -> AccommodationTerms:
        data = self.cleaned_data
        return AccommodationTerms(
            extra_minutes=data.get("extra_minutes") or 0,
            extra_attempts=data.get("extra_attempts") or 0,
            closes_at=data.get("closes_at"),
            reason=data.get("reason") or "",
        )

    def clean(self):
        data = super().clean()
        quiz = data.get("quiz") or (self.instance.quiz if self.instance.quiz_id else None)
        if quiz is None:
            return data
        if not may_change_scores(user=self.acting_user, quiz=quiz):
            self.add_error(
                None, _("Only the course's instructors may set a learner's accommodations.")
            )
            return data
        for field, message in accommodation_problems(
            quiz=quiz, terms=self.terms(), now=timezone.now()
        ).items():
            self.add_error(field if field in self.fields else None, message)
        return data


@admin.register(QuizAccommodation)
class QuizAccommodationAdmin(admin.ModelAdmin):
    form = QuizAccommodationForm
    formfield_overrides = ZONED_DATE_TIMES
    list_display = [
        "learner",
        "quiz",
        "extra_minutes",
        "extra_attempts",
        "closes_at",
        "set_by_username",
        "updated_at",
    ]
    list_filter = ["quiz__lesson__course"]
    search_fields = ["learner__username", "quiz__title", "quiz__slug"]
    autocomplete_fields = ["learner"]
    readonly_fields = ["set_by_username", "created_at", "updated_at"]

    def get_fields(self, request, obj=None):
        return [*FIELDS, *self.readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        # Whose and which quiz's an accommodation is never changes; remove it and add another.
        extra = ["quiz", "learner"] if obj is not None else []
        return [*extra, *self.readonly_fields]

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        form.acting_user = request.user
        return form

    def save_model(self, request, obj, form, change):
        saved = accommodation_set(
            quiz=obj.quiz, learner=obj.learner, terms=form.terms(), by=request.user
        )
        obj.pk = saved.pk

    def delete_model(self, request, obj):
        accommodation_remove(accommodation=obj, by=request.user)

    def delete_queryset(self, request, queryset):
        for accommodation in queryset.select_related("quiz", "learner"):
            accommodation_remove(accommodation=accommodation, by=request.user)
