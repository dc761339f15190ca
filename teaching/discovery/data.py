"""New misconceptions of one problem in a course: its wrong answers that no named misconception
explained, handed to teaching.discovery.mistakes as WrongAnswer rows, and the groups it
finds, with what the page links them to.

Each answer's value is what grading read (Response.detail["parsed"]); the true answer is the
family's solve on the variant's stored givens and grading key (never regenerated); the givens are
numeric_givens of the stored givens (what the learner saw). Only problems whose answer is one
number take part.

**Bound and cache.** Discovery grows faster than the number of answers (each cluster of values
the answers propose is one more relation to test): about 0.02 s for 300 answers, 0.3 to 0.5 s for
3,000 and 2 to 2.5 s for 10,000 on the 2-core machine (docs/performance.md). So it reads the most
recent MAX_ANSWERS answers (about one wrong answer each from an exam's 3,000 learners: the page
then takes under 0.8 s), and the page's result is kept in Django's cache under the problem, the
course, the choice of answers and a fingerprint of them (the newest response id, their number and
the newest regrade of the problem's quiz items, or of items drawing it from a pool): a new answer,
a deletion or a regrade computes afresh, anything else reads the cache (the page then takes under
0.1 s).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
from django.core.cache import cache
from django.db.models import Count, Max, Q

from courses.models import Course, Problem
from grading import engine
from grading.models import Regrade, Response, Variant
from teaching.discovery.mistakes import (
    MistakeGroup,
    WrongAnswer,
    discover,
    mistake_formula,
    numeric_givens,
)
from teaching.discovery.problems import responses_of

MAX_ANSWERS = 3000
CACHE_SECONDS = 24 * 60 * 60


@dataclass(frozen=True, slots=True)
class AnswerSource:
    """Where one response of a group came from: its learner, attempt and that attempt's number
    (None in practice), and the generic diagnosis grading gave it (None when none)."""

    learner: int
    attempt: int | None
    number: int | None
    diagnosis: str | None


@dataclass(frozen=True)
class Discovery:
    groups: tuple[MistakeGroup, ...]
    available: int  # wrong answers with no named misconception (and no diagnosis, if asked)
    considered: int  # of those, handed to discovery: the most recent MAX_ANSWERS numbers
    learners: int  # among the answers considered
    sources: dict[int, AnswerSource]  # for every response in a group

    @property
    def capped(self) -> bool:
        return self.available > MAX_ANSWERS


def unnamed_wrong(*, course: Course, problem: Problem, with_diagnosis: bool) -> Q:
    """The course's wrong answers to the problem that name no misconception; without
    `with_diagnosis`, those grading diagnosed as a generic slip are left out too."""
    found = responses_of(course) & Q(
        variant__problem=problem, status=Response.Status.INCORRECT, misconception=""
    )
    if not with_diagnosis:
        found &= Q(detail__diagnosis=None) | Q(detail__diagnosis__isnull=True)
    return found


def _fingerprint(*, course: Course, problem: Problem, with_diagnosis: bool) -> tuple[int, ...]:
    answers = Response.objects.filter(
        unnamed_wrong(course=course, problem=problem, with_diagnosis=with_diagnosis)
    ).aggregate(newest=Max("id"), count=Count("id"))
    # A regrade of an item drawing from a pool that holds the problem regrades its answers too.
    regrades = Regrade.objects.filter(
        Q(quiz_item__problem=problem) | Q(quiz_item__pool__problems=problem)
    )
    regrade = regrades.aggregate(newest=Max("id"))
    return (answers["newest"] or 0, answers["count"], regrade["newest"] or 0)


def _true_answers(variants: dict[int, tuple[str, dict, dict]]) -> dict[int, float]:
    """Each variant's true answer when it is one finite number, from its stored givens; solved
    once per distinct set of numbers (variants drawn from a few choices repeat them often)."""
    solved: dict[str, float | None] = {}
    found = {}
    for variant_id, (family_key, givens, grading_key) in variants.items():
        key = json.dumps([family_key, givens, grading_key], sort_keys=True, default=str)
        if key not in solved:
            solved[key] = _true_answer(family_key, givens, grading_key)
        if solved[key] is not None:
            found[variant_id] = solved[key]
    return found


def _true_answer(family_key: str, givens: dict, grading_key: dict) -> float | None:
    try:
        family = engine.get_family(family_key)
        if tuple(family.answer_shape(givens)) != ():
            return None
        answer = float(np.asarray(family.solve(givens, grading_key or engine.NO_KEY).answer))
    except (engine.UnknownFamily, KeyError, TypeError, ValueError):
        return None  # a variant grading could not read either: nothing to compare with
    return answer if math.isfinite(answer) else None


def wrong_answers(
    *, course: Course, problem: Problem, with_diagnosis: bool
) -> tuple[list[WrongAnswer], dict[int, AnswerSource]]:
    """The WrongAnswer rows of the most recent MAX_ANSWERS unnamed wrong answers whose value and
    true answer are numbers, oldest first, and where each came from. Two queries."""
    recent = Response.objects.filter(
        unnamed_wrong(course=course, problem=problem, with_diagnosis=with_diagnosis)
    ).order_by("-id")[:MAX_ANSWERS]
    rows = list(
        recent.values_list("id", "user_id", "attempt_id", "attempt__number", "variant_id", "detail")
    )
    variants = {
        pk: (family, givens, key)
        for pk, family, givens, key in Variant.objects.filter(
            pk__in=recent.values("variant_id")
        ).values_list("id", "family", "givens", "grading_key")
    }
    answers = _true_answers(variants)
    found: list[WrongAnswer] = []
    sources: dict[int, AnswerSource] = {}
    for response_id, user_id, attempt_id, number, variant_id, detail in reversed(rows):
        detail = detail if isinstance(detail, dict) else {}
        value = detail.get("parsed")
        if (
            variant_id not in answers
            or isinstance(value, bool)
            or not isinstance(value, int | float)
        ):
            continue
        if not math.isfinite(value):
            continue
        found.append(
            WrongAnswer(
                learner=user_id,
                variant=variant_id,
                value=float(value),
                answer=answers[variant_id],
                givens=numeric_givens(variants[variant_id][1]),
                response=response_id,
            )
        )
        sources[response_id] = AnswerSource(user_id, attempt_id, number, detail.get("diagnosis"))
    return found, sources


def problem_discovery(*, course: Course, problem: Problem, with_diagnosis: bool) -> Discovery:
    """The groups the problem's unnamed wrong answers form in the course; from the cache when
    nothing changed since (two queries), else computed (two more) and cached."""
    fingerprint = _fingerprint(course=course, problem=problem, with_diagnosis=with_diagnosis)
    key = ":".join(
        map(str, ("teaching-discovery-1", course.pk, problem.pk, int(with_diagnosis), *fingerprint))
    )
    found = cache.get(key)
    if found is None:
        answers, sources = wrong_answers(
            course=course, problem=problem, with_diagnosis=with_diagnosis
        )
        groups = tuple(discover(answers))
        kept = {response for group in groups for response in group.responses}
        found = Discovery(
            groups=groups,
            available=fingerprint[1],
            considered=len(answers),
            learners=len({answer.learner for answer in answers}),
            sources={response: sources[response] for response in kept},
        )
        cache.set(key, found, CACHE_SECONDS)
    return found


def named_already(problem: Problem, group: MistakeGroup) -> str | None:
    """The code of the formula problem's mistake whose formula is the group's, if one is."""
    params = problem.params if isinstance(problem.params, dict) else {}
    answer = params.get("answer")
    if problem.family != engine.FORMULA_FAMILY or not isinstance(answer, str):
        return None
    wanted = "".join(mistake_formula(group.formula, answer).split())
    for code, entry in (params.get("mistakes") or {}).items():
        formula = engine.mistake_formula(entry)
        if isinstance(formula, str) and "".join(formula.split()) == wanted:
            return code
    return None
