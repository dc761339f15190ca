"""Questions and their choices in the admin, made quick to author: a new question starts with four
blank choices, each choice's misconception picker lists the question's own lesson first, the
choices table fits a 1280 px screen, and a preview shows the question as a learner will read it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django import forms
from django.contrib import admin
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from .admin_markup import LabelledRowsMixin, MarkupFieldsForm, plain_column
from .admin_publishing import PUBLISHING_ACTIONS, unpublishing_problems
from .bank.rules import choice_set_problems
from .content_versions import content_changed
from .markup import MarkupError, render_markup, render_title
from .misconception_labels import misconception_label
from .models import Choice, Lesson, Misconception, Question
from .plain_math import plain_math
from .pool_admin import MemberMoveForm

NEW_QUESTION_CHOICES = 4


def nothing_yet() -> SafeString:
    """The preview of a question with no prompt yet (worded in the page's language)."""
    return format_html("<p><em>{}</em></p>", _("Write the prompt and choices to preview them."))


# --- the misconception picker -----------------------------------------------------------------


def lesson_label(lesson: Lesson) -> str:
    return plain_math(f"{lesson.course.title} › {lesson.title}")


def misconception_options(lesson_id: int | None) -> list[tuple[str, list[tuple[int, str]]]]:
    """The picker's option groups: the misconceptions of lesson `lesson_id` first, headed "This
    lesson", then every other lesson's under "Other lessons"; in each group the lesson's own
    before the placeholders an import made (marked). Without a lesson (a new question whose
    lesson is not chosen yet), one group per lesson in course order, so a misconception is
    still found by its lesson."""
    misconceptions = Misconception.objects.select_related("lesson__course").order_by(
        "lesson__course__title", "lesson__order", "lesson_id", "imported", "code"
    )
    groups: dict[int, tuple[Lesson, list[tuple[int, str]]]] = {}
    for m in misconceptions:
        groups.setdefault(m.lesson_id, (m.lesson, []))[1].append((m.pk, misconception_label(m)))
    own = groups.pop(lesson_id, None) if lesson_id is not None else None
    if lesson_id is None:
        return [(lesson_label(lesson), options) for lesson, options in groups.values()]
    ordered = (
        [(_("This lesson · %(lesson)s") % {"lesson": lesson_label(own[0])}, own[1])] if own else []
    )
    ordered += [
        (_("Other lessons · %(lesson)s") % {"lesson": lesson_label(lesson)}, options)
        for lesson, options in groups.values()
    ]
    return ordered


def question_lesson_id(request: HttpRequest, question: Question | None) -> int | None:
    """The lesson the author has chosen: the form's on a submission (it may have just changed),
    else the saved question's, else the add page's `?lesson=` (a link from the lesson)."""
    raw = request.POST.get("lesson") if request.method == "POST" else None
    if raw is None and question is not None:
        return question.lesson_id
    raw = raw if raw is not None else request.GET.get("lesson")
    return int(raw) if raw and raw.isdigit() else None


# --- the preview: the question as a learner will read it ---------------------------------------


@dataclass(frozen=True)
class ChoiceDraft:
    """A choice as the preview needs it, saved or still in the form."""

    text: str
    is_correct: bool
    feedback: str
    misconception: Misconception | None


def _rendered(text: str, *, inline: bool) -> SafeString:
    """`text` as the learner's page renders it, or why it cannot render (the form refuses it)."""
    try:
        return render_markup(text, inline=inline)
    except MarkupError as exc:
        return format_html(
            '<span class="errornote">{}</span>', _("Cannot render: %(error)s") % {"error": exc}
        )


def _letter(number: int) -> str:
    return chr(ord("A") + number - 1) if 1 <= number <= 26 else str(number)


def _if_picked(choice: ChoiceDraft) -> SafeString:
    verdict = format_html(
        '<span class="{}">{}</span>',
        "sg-right" if choice.is_correct else "sg-wrong",
        _("✓ Correct") if choice.is_correct else _("✗ Not correct"),
    )
    feedback = (
        _rendered(choice.feedback, inline=True)
        if choice.feedback
        else format_html("<em>{}</em>", _("no feedback of its own"))
    )
    misconception = (
        format_html(
            '<span class="sg-misconception">{} {}</span>',
            _("Misconception:"),
            render_title(choice.misconception.title),
        )
        if choice.misconception and not choice.is_correct
        else ""
    )
    return format_html("{}: {} {}", verdict, feedback, misconception)


def question_preview(*, prompt: str, choices: list[ChoiceDraft], explanation: str) -> SafeString:
    """The prompt, the choices lettered as a learner sees them, what each one answers when picked,
    and the explanation, all through the sanitizing renderer the learner's pages use."""
    if_picked = _("If picked:")
    rows = format_html_join(
        "",
        '<li><span class="choice-letter">{}.</span> <span class="sg-choice-text">{}</span>'
        '<div class="sg-if-picked">{} {}</div></li>',
        (
            (_letter(number), _rendered(choice.text, inline=True), if_picked, _if_picked(choice))
            for number, choice in enumerate(choices, start=1)
        ),
    )
    explained = (
        format_html("<h4>{}</h4>{}", _("Explanation"), _rendered(explanation, inline=False))
        if explanation
        else ""
    )
    return format_html(
        '<div class="sg-preview">{}</div><ol class="sg-preview-choices">{}</ol>{}',
        _rendered(prompt, inline=False) if prompt else nothing_yet(),
        rows,
        explained,
    )


def saved_choices(question: Question) -> list[ChoiceDraft]:
    return [
        ChoiceDraft(c.text, c.is_correct, c.feedback, c.misconception)
        for c in question.choices.select_related("misconception")
    ]


def posted_choices(data) -> list[ChoiceDraft]:
    """The choices of the form as the author left it: blank and deleted rows left out, in the
    order the author numbered them (as the saved question will be)."""
    prefix = "choices"
    try:
        total = min(int(data.get(f"{prefix}-TOTAL_FORMS", 0)), 1000)
    except ValueError:
        total = 0
    rows = []
    for i in range(total):
        field = f"{prefix}-{i}-"
        text = (data.get(field + "text") or "").strip()
        if not text or data.get(field + "DELETE"):
            continue
        order = data.get(field + "order") or ""
        rows.append(
            (
                int(order) if order.isdigit() else 0,
                i,
                text,
                bool(data.get(field + "is_correct")),
                data.get(field + "feedback") or "",
                data.get(field + "misconception") or "",
            )
        )
    picked = {m.pk: m for m in Misconception.objects.filter(pk__in=_ids(r[5] for r in rows))}
    return [
        ChoiceDraft(text, correct, feedback, picked.get(int(m)) if m.isdigit() else None)
        for _, _, text, correct, feedback, m in sorted(rows)
    ]


def _ids(raw) -> list[int]:
    return [int(value) for value in raw if value.isdigit()]


# --- the admin -------------------------------------------------------------------------------


class ChoiceInlineFormSet(LabelledRowsMixin, forms.BaseInlineFormSet):
    """Checks the choices as a set: each wrong one explained, the right number correct."""

    def clean(self):
        super().clean()
        correct = []
        for number, form in enumerate(self.forms, start=1):
            if not hasattr(form, "cleaned_data") or not form.cleaned_data:
                continue
            if form.cleaned_data.get("DELETE"):
                continue
            is_correct = bool(form.cleaned_data.get("is_correct"))
            correct.append(is_correct)
            if not is_correct and not form.cleaned_data.get("misconception"):
                raise forms.ValidationError(
                    _("Choice %(number)s is wrong but names no misconception.") % {"number": number}
                )
        kind = self.instance.kind if self.instance else Question.Kind.SINGLE
        problems = choice_set_problems(kind, correct)
        if problems:
            raise forms.ValidationError([p[0].upper() + p[1:] + "." for p in problems])


# Feedback that tells the learner they are right: "Right: …", "Correct!", "Right, because …".
SAYS_RIGHT = re.compile(r"^\s*(?:right|correct)\s*(?:[:!.,;—–]|$)", re.IGNORECASE)


def says_right(feedback: str) -> bool:
    return bool(SAYS_RIGHT.match(feedback or ""))


def right_feedback_problem(*, is_correct: bool, was_correct: bool, feedback: str) -> str:
    """Why a wrong choice's feedback cannot stand, or "": it would tell a learner who picked a
    wrong answer that they are right. Flagged, not cleared: the text is the author's, often
    worth rewording rather than losing (the choice may even be made right again)."""
    if is_correct or not says_right(feedback):
        return ""
    if was_correct:
        return _(
            "This choice is now marked wrong, but its feedback still tells the learner they are "
            "right. Rewrite it for a learner who picked a wrong answer, or leave it empty."
        )
    return _(
        "This choice is wrong, but its feedback still tells the learner they are right. "
        "Rewrite it for a learner who picked a wrong answer, or leave it empty."
    )


class ChoiceForm(MarkupFieldsForm):
    markup_fields = ("text", "feedback")

    def clean(self):
        cleaned = super().clean()
        problem = right_feedback_problem(
            is_correct=bool(cleaned.get("is_correct")),
            was_correct=bool(self.initial.get("is_correct")),
            feedback=cleaned.get("feedback") or "",
        )
        if problem:
            self.add_error("feedback", problem)
        return cleaned

    class Meta:
        model = Choice
        fields = "__all__"
        # Two-line boxes that share the row's width, so the table fits a 1280 px screen.
        widgets = {
            "text": forms.Textarea(attrs={"rows": 2, "cols": 30}),
            "feedback": forms.Textarea(attrs={"rows": 2, "cols": 30}),
        }


class ChoiceInline(admin.TabularInline):
    model = Choice
    form = ChoiceForm
    formset = ChoiceInlineFormSet
    fields = ["order", "text", "is_correct", "pinned", "misconception", "feedback"]

    def get_extra(self, request, obj=None, **kwargs):
        # A saved question shows its own choices only; "Add another Choice" adds a row.
        return NEW_QUESTION_CHOICES if obj is None else 0

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        # Grouped once per page, shared by every row (the form class is made for this request).
        field = formset.form.base_fields["misconception"]
        lesson_id = question_lesson_id(request, obj)
        field.choices = [("", "---------"), *misconception_options(lesson_id)]
        # Room for the picker in a narrow column: a misconception is deleted on its own page
        # (where the choices that name it are listed), not from a choice's row.
        field.widget.can_delete_related = False
        field.widget.can_view_related = False
        return formset


class QuestionForm(MemberMoveForm, MarkupFieldsForm):
    markup_fields = ("prompt", "explanation")

    class Meta:
        model = Question
        fields = "__all__"

    def clean(self):
        cleaned = super().clean()
        for problem in unpublishing_problems(self):
            self.add_error("published", problem)
        return cleaned


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    form = QuestionForm
    list_display = [
        "slug",
        plain_column("title", gettext_lazy("Title")),
        "kind",
        "lesson",
        "choice_count",
        "published",
    ]
    list_filter = ["published", "lesson", "kind"]
    search_fields = ["slug", "title", "prompt", "choices__text"]
    inlines = [ChoiceInline]
    actions = PUBLISHING_ACTIONS
    fields = ["lesson", "title", "slug", "kind", "order", "published", "prompt", "explanation"]

    class Media:
        css = {"all": ["css/admin-questions.css"]}
        js = ["js/admin-question-preview.js"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_choices=Count("choices"))

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # The object and its inlines are saved: sheets showing it are rendered again.
        content_changed(question_ids=[form.instance.pk])

    @admin.display(description=gettext_lazy("Choices"), ordering="n_choices")
    def choice_count(self, obj: Question) -> int:
        return obj.n_choices

    def get_urls(self):
        preview = self.admin_site.admin_view(require_POST(self.preview_view))
        return [path("preview/", preview, name="courses_question_preview"), *super().get_urls()]

    def preview_view(self, request: HttpRequest) -> HttpResponse:
        """The preview of the form as it stands, for the page's script to show while typing."""
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            return HttpResponse(status=403)
        return HttpResponse(self.learner_preview(request, None))

    def learner_preview(self, request: HttpRequest, obj: Question | None) -> SafeString:
        if request.method == "POST":
            return question_preview(
                prompt=request.POST.get("prompt", ""),
                choices=posted_choices(request.POST),
                explanation=request.POST.get("explanation", ""),
            )
        if obj is None:
            return nothing_yet()
        return question_preview(
            prompt=obj.prompt, choices=saved_choices(obj), explanation=obj.explanation
        )

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        context["learner_preview"] = self.learner_preview(request, obj)
        context["learner_preview_url"] = reverse("admin:courses_question_preview")
        return super().render_change_form(request, context, add, change, form_url, obj)
