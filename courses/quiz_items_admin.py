"""The quiz admin's items once learners have attempted the quiz (courses/attempted_quizzes.py).

The change page says how many attempts the quiz has and what a points change does to them. A
points change on an attempted quiz is shown first, as what it will do (who gains, who loses,
the new maximum, what the LMS is sent), and saved only once the instructor ticks "Regrade the
attempts" and saves again; it is then made by grading's audited regrade, never by the formset's
own save. Adding, removing, reordering or replacing an attempted quiz's items is refused with a
plain error, before anything is saved.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.db.models import Max
from django.http import HttpRequest
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .attempted_quizzes import ITEMS_KEPT, attempted, items_kept, points_change, points_plan
from .models import Quiz, QuizItem

# The quiz form's tick box that confirms a points change on an attempted quiz, and the hidden
# digest of what the change was shown to do: the save applies only that.
CONFIRM_FIELD = "regrade_attempts"
DIGEST_FIELD = "regrade_digest"
CONTENT_FIELDS = ("order", "question", "problem", "pool")


def next_item_order(quiz: Quiz | None) -> int:
    """Where a new item of the quiz goes: after its last (1 for a quiz without items)."""
    if quiz is None or quiz.pk is None:
        return 1
    last = QuizItem.objects.filter(quiz=quiz).aggregate(n=Max("order"))["n"]
    return 1 if last is None else last + 1


class NextOrderFormSetMixin:
    """New item rows start at the next order, counting up: the extra rows the page shows, and
    the blank row "Add another" copies (static/js/admin-quiz-items.js counts the copies up)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        first = next_item_order(self.instance)
        self.next_order = first + self.extra
        self.initial_extra = [{"order": first + n} for n in range(self.extra)]

    def get_form_kwargs(self, index):
        kwargs = super().get_form_kwargs(index)
        if index is None:  # the blank row "Add another" copies
            kwargs = {**kwargs, "initial": {"order": self.next_order}}
        return kwargs


def confirm_field() -> forms.BooleanField:
    return forms.BooleanField(
        required=False,
        label=gettext_lazy("Regrade the attempts"),
        help_text=gettext_lazy(
            "Tick to save a change of an item's points on a quiz with attempts: what it "
            "will do is shown first when you save without it."
        ),
    )


def digest_field() -> forms.CharField:
    return forms.CharField(required=False, widget=forms.HiddenInput)


def digest_shown(context: dict) -> None:
    """Put the digest of the change the items' formset has just shown into the quiz form's
    hidden field (a copy of the posted data), for the save that confirms it."""
    adminform = context.get("adminform")
    for inline in context.get("inline_admin_formsets", ()):
        plan = getattr(inline.formset, "plan_shown", None)
        if plan is not None and adminform is not None:
            adminform.form.data = adminform.form.data.copy()
            adminform.form.data[DIGEST_FIELD] = plan.digest


def attempts_notice(quiz: Quiz) -> str:
    """How many attempts the quiz has and what a change does to them (the change page)."""
    plan = points_plan(quiz=quiz) if quiz.pk else None
    if plan is None:
        return _("Save the quiz first.")
    if not attempted(plan):
        return plan.notice()
    return _("%(notice)s While it has attempts, %(kept)s") % {
        "notice": plan.notice(),
        "kept": ITEMS_KEPT,
    }


def _changed_points(formset: forms.BaseInlineFormSet) -> dict[int, int]:
    return {
        form.instance.pk: form.cleaned_data["points"]
        for form in formset.initial_forms
        if form.cleaned_data
        and not form.cleaned_data.get("DELETE")
        and "points" in form.changed_data
    }


def attempted_items_clean(formset: forms.BaseInlineFormSet, *, user) -> None:
    """Refuse what an attempted quiz's items may not do, and a points change not confirmed
    (ValidationError, saying what it would do)."""
    quiz = formset.instance
    plan = points_plan(quiz=quiz) if quiz.pk else None
    if not attempted(plan):
        return
    kept = capfirst(items_kept(plan))
    for number, form in enumerate(formset.forms, start=1):
        data = getattr(form, "cleaned_data", None)
        if not data:
            continue
        refused = ""
        if form.instance.pk is None:
            refused = _("Item %(number)s cannot be added.") if form.has_changed() else ""
        elif data.get("DELETE"):
            refused = _("Item %(number)s cannot be removed.")
        elif set(CONTENT_FIELDS) & set(form.changed_data):
            refused = _("Item %(number)s cannot be reordered or changed.")
        if refused:
            raise forms.ValidationError(f"{refused % {'number': number}} {kept}")
    points = _changed_points(formset)
    if not points:
        return
    plan = points_plan(quiz=quiz, points=points, by=user)
    if plan.refusal:
        raise forms.ValidationError(plan.refusal)
    formset.plan_shown = plan
    confirmed = bool(formset.data.get(CONFIRM_FIELD))
    shown = formset.data.get(DIGEST_FIELD)
    if not confirmed or shown != plan.digest:
        # Also when ticked before it was shown, or when attempts came in since it was shown:
        # what is applied is always what was shown last.
        changed = " " + _("(This has changed since it was shown: check it again.)") if shown else ""
        nothing_yet = _(
            "Nothing is saved yet: tick “Regrade the attempts” and save again to apply it."
        )
        raise forms.ValidationError(f"{plan.notice()} {plan.outcome()}{changed} {nothing_yet}")


def quiz_items_save(formset: forms.BaseInlineFormSet, *, request: HttpRequest) -> None:
    """Save the items; their points through grading's regrade (which audits and passes back
    what an attempted quiz's change does), and say what it did."""
    points = _changed_points(formset)
    for form in formset.initial_forms:
        if form.instance.pk in points:
            form.instance.points = form.initial["points"]
    formset.save()
    if not points:
        return
    done = points_change(quiz=formset.instance, points=points, by=request.user)
    if done is not None and attempted(done):
        messages.info(request, _("Regraded: %(outcome)s") % {"outcome": done.outcome()})
