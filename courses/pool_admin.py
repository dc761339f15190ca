"""Pools in the authoring tool: a named set of questions and problems that quiz items draw from
(each item naming a pool draws one member per attempt; grading/draws.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from .admin_markup import plain_column
from .bank.rules import pool_draw_problem
from .content_versions import content_changed
from .models import Pool, Question, Quiz, QuizItem
from .plain_math import plain_math
from .pool_draws import MOST_DRAWS, DrawsRefused, quiz_draws_add
from .pool_members import (
    draw_refusal,
    foreign_members,
    member_label,
    moved_lesson_refusals,
    moved_member_refusals,
    moved_pool_refusals,
)


def pool_draw_problems(pool_items: Iterable[tuple[int, Pool]]) -> list[str]:
    """What is wrong with a quiz's items drawing from pools ((item number, pool) pairs): a pool
    with fewer members than the items naming it, named with the items, since each item of an
    attempt draws a different member."""
    numbers: dict[int, list[int]] = {}
    pools: dict[int, Pool] = {}
    for number, pool in pool_items:
        numbers.setdefault(pool.pk, []).append(number)
        pools[pool.pk] = pool
    problems = []
    for pool_id, items in numbers.items():
        pool = pools[pool_id]
        problem = pool_draw_problem(pool=f"“{pool.title}”", size=pool.size(), items=items)
        if problem:
            problems.append(problem[0].upper() + problem[1:] + ".")
    return problems


class PoolForm(forms.ModelForm):
    class Meta:
        model = Pool
        fields = ["lesson", "title", "slug", "questions", "problems"]

    def clean(self):
        cleaned = super().clean()
        self._foreign_members_refuse(cleaned)
        self._moved_pool_refuse(cleaned)
        if self.instance.pk is None:
            return cleaned
        size = len(cleaned.get("questions") or []) + len(cleaned.get("problems") or [])
        used = Counter(
            QuizItem.objects.filter(pool=self.instance).values_list("quiz__title", flat=True)
        )
        for quiz, items in sorted(used.items()):
            if items > size:
                raise forms.ValidationError(
                    _(
                        "Quiz “%(quiz)s” draws %(items)s members from this pool in %(items)s "
                        "items; it would keep %(size)s. Keep at least %(items)s members, or draw "
                        "from it in fewer items first."
                    )
                    % {"quiz": quiz, "items": items, "size": size}
                )
        published = QuizItem.objects.filter(pool=self.instance, quiz__published=True)
        members = [*(cleaned.get("questions") or []), *(cleaned.get("problems") or [])]
        unpublished = sorted(member.slug for member in members if not member.published)
        if unpublished and published.exists():
            raise forms.ValidationError(
                ngettext(
                    "A published quiz draws from this pool, so its members must be published: "
                    "%(slugs)s is not.",
                    "A published quiz draws from this pool, so its members must be published: "
                    "%(slugs)s are not.",
                    len(unpublished),
                )
                % {"slugs": ", ".join(unpublished)}
            )
        return cleaned

    def _moved_pool_refuse(self, cleaned: dict) -> None:
        """Moving the pool to another course's lesson is refused on its lesson field while a
        quiz of its course draws from it."""
        lesson = cleaned.get("lesson")
        if self.instance.pk is None or lesson is None or lesson.pk == self.instance.lesson_id:
            return
        for refusal in moved_pool_refusals(pool=self.instance, lesson=lesson):
            self.add_error("lesson", f"{capfirst(refusal)}.")

    def _foreign_members_refuse(self, cleaned: dict) -> None:
        """Each question or problem of another course is named on its own field."""
        if cleaned.get("lesson") is None:
            return
        chosen = {name: cleaned.get(name) or [] for name in ("questions", "problems")}
        found = foreign_members(
            pool_lesson=cleaned["lesson"],
            questions=[question.pk for question in chosen["questions"]],
            problems=[problem.pk for problem in chosen["problems"]],
        )
        for member, refusal in found:
            field = "questions" if isinstance(member, Question) else "problems"
            message = _("%(member)s cannot be in this pool: %(refusal)s.") % {
                "member": capfirst(member_label(member)),
                "refusal": refusal,
            }
            self.add_error(field, message)


class MemberMoveForm(forms.ModelForm):
    """Mixed into the question's and the problem's forms: moving one that a pool holds to a
    lesson of another course is refused on its lesson field (courses.pool_members)."""

    def clean(self):
        cleaned = super().clean()
        lesson = cleaned.get("lesson")
        if self.instance.pk is None or lesson is None or lesson.pk == self.instance.lesson_id:
            return cleaned
        for refusal in moved_member_refusals(member=self.instance, lesson=lesson):
            self.add_error("lesson", f"{capfirst(refusal)}.")
        return cleaned


def foreign_draw_errors(formset: forms.BaseInlineFormSet, kept: list[tuple[int, dict]]) -> None:
    """The quiz's items: an item drawing from a pool of another course than the quiz's (as the
    quiz's form has just set its lesson, so also when the quiz moves) is refused on its pool
    field (courses.pool_members)."""
    quiz = formset.instance
    if quiz.lesson_id is None:
        return  # no lesson chosen: the quiz's form says so
    for number, data in kept:
        pool = data.get("pool")
        refusal = pool and draw_refusal(pool_lesson=pool.lesson, quiz_lesson=quiz.lesson)
        if refusal:
            form = formset.forms[number - 1]
            form.add_error(
                "pool",
                _("Pool “%(pool)s” belongs to another course: %(refusal)s.")
                % {"pool": pool.title, "refusal": refusal},
            )


def lesson_move_errors(form: forms.ModelForm, cleaned: dict) -> None:
    """The lesson's form: moving it to another course is refused on its course field while a
    pool would then hold questions or problems of two courses (courses.pool_members)."""
    course = cleaned.get("course")
    if form.instance.pk is None or course is None or course.pk == form.instance.course_id:
        return
    for refusal in moved_lesson_refusals(lesson=form.instance, course=course):
        form.add_error("course", f"{capfirst(refusal)}.")


@admin.register(Pool)
class PoolAdmin(admin.ModelAdmin):
    form = PoolForm
    list_display = [
        plain_column("title", gettext_lazy("Title")),
        "slug",
        "lesson",
        "question_count",
        "problem_count",
    ]
    list_filter = ["lesson"]
    search_fields = ["title", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    autocomplete_fields = ["questions", "problems"]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # The object and its inlines are saved: sheets showing it are rendered again.
        content_changed(pool_ids=[form.instance.pk])

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                question_count=Count("questions", distinct=True),
                problem_count=Count("problems", distinct=True),
            )
        )

    @admin.display(description=gettext_lazy("Questions"), ordering="question_count")
    def question_count(self, obj: Pool) -> int:
        return obj.question_count

    @admin.display(description=gettext_lazy("Problems"), ordering="problem_count")
    def problem_count(self, obj: Pool) -> int:
        return obj.problem_count


class DrawsForm(forms.Form):
    """How many members of which pool the quiz draws, and what each draw is worth."""

    pool = forms.ModelChoiceField(queryset=Pool.objects.none())
    count = forms.IntegerField(
        label=gettext_lazy("How many to draw"),
        min_value=1,
        max_value=MOST_DRAWS,
        initial=1,
        help_text=gettext_lazy(
            "Each becomes an item of its own; every attempt draws different members."
        ),
    )
    points = forms.IntegerField(label=gettext_lazy("Points each"), min_value=1, initial=1)

    def __init__(self, *args, quiz: Quiz, **kwargs):
        super().__init__(*args, **kwargs)
        pools = Pool.objects.filter(lesson__course_id=quiz.lesson.course_id)
        self.fields["pool"].queryset = pools.select_related("lesson").order_by("lesson", "title")
        self.fields["pool"].label_from_instance = lambda pool: (
            f"{plain_math(pool.title)} ({pool.lesson})"
        )


def quiz_draws_view(model_admin: admin.ModelAdmin, request, object_id: str):
    """Add k items drawing from a pool to the quiz, in one step (courses.pool_draws)."""
    quiz = get_object_or_404(Quiz.objects.select_related("lesson"), pk=object_id)
    if not model_admin.has_change_permission(request, quiz):
        raise PermissionDenied
    form = DrawsForm(request.POST or None, quiz=quiz)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            added = quiz_draws_add(
                quiz=quiz, pool=data["pool"], count=data["count"], points=data["points"]
            )
        except DrawsRefused as refusal:
            form.add_error(None, str(refusal))
        else:
            title = plain_math(data["pool"].title)
            messages.success(
                request,
                ngettext(
                    "Added %(count)s item drawing from “%(pool)s”.",
                    "Added %(count)s items drawing from “%(pool)s”.",
                    len(added),
                )
                % {"count": len(added), "pool": title},
            )
            return redirect("admin:courses_quiz_change", quiz.pk)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "original": quiz,
        "title": _("Draw from a pool in %(quiz)s") % {"quiz": quiz.title},
        "form": form,
        "pools_url": reverse("admin:courses_pool_add"),
    }
    return TemplateResponse(request, "admin/courses/quiz/draws.html", context)
