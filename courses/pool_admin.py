"""Pools in the authoring tool: a named set of questions and problems that quiz items draw from
(each item naming a pool draws one member per attempt; grading/draws.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from django import forms
from django.contrib import admin
from django.db.models import Count

from .bank.rules import pool_draw_problem
from .models import Pool, QuizItem


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
        if self.instance.pk is None:
            return cleaned
        size = len(cleaned.get("questions") or []) + len(cleaned.get("problems") or [])
        used = Counter(
            QuizItem.objects.filter(pool=self.instance).values_list("quiz__title", flat=True)
        )
        for quiz, items in sorted(used.items()):
            if items > size:
                raise forms.ValidationError(
                    f"Quiz “{quiz}” draws {items} members from this pool in {items} items; "
                    f"it would keep {size}. Keep at least {items} members, or draw from it in "
                    "fewer items first."
                )
        return cleaned


@admin.register(Pool)
class PoolAdmin(admin.ModelAdmin):
    form = PoolForm
    list_display = ["title", "slug", "lesson", "question_count", "problem_count"]
    list_filter = ["lesson"]
    search_fields = ["title", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    autocomplete_fields = ["questions", "problems"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                question_count=Count("questions", distinct=True),
                problem_count=Count("problems", distinct=True),
            )
        )

    @admin.display(description="Questions", ordering="question_count")
    def question_count(self, obj: Pool) -> int:
        return obj.question_count

    @admin.display(description="Problems", ordering="problem_count")
    def problem_count(self, obj: Pool) -> int:
        return obj.problem_count
