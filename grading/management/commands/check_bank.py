from __future__ import annotations

import math

import numpy as np
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext, ngettext

from courses.models import Misconception, Problem
from grading import engine
from grading.families import problem_tolerance, variant_data


def _finite(value) -> bool:
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True
    return math.isfinite(value)


def _unrecognised_mistakes(problem, family, seed, data, tolerance) -> list[str]:
    """Every mistake the family lists for this variant (not only those it ends up offering)
    that differs from the answer must grade incorrect and be named by its own misconception:
    a mistake shadowed by another, of the wrong shape or without feedback fails here. The
    instructor's property checks run first, so a mistake that fails one is named by that check:
    accepted when the check names the mistake's misconception, reported (with the check) when
    not."""
    failures = []
    where = gettext("%(problem)s seed %(seed)s") % {"problem": problem.slug, "seed": seed}
    listed = family.solve(data.givens, data.grading_key).mistakes
    for code, value in listed.items():
        value = np.asarray(value, dtype=np.float64)
        if not np.isfinite(value).all():
            continue  # no learner can type it (a softmax mistake dividing by a zero sum)
        if (
            value.shape == data.answer.shape
            and engine.within_tolerance(value, data.answer, tolerance).all()
        ):
            continue  # the same as the answer on this variant: nothing to recognise
        if problem.family != engine.FORMULA_FAMILY and code not in family.mistakes:
            failures.append(
                gettext("%(where)s: mistake %(code)s has no feedback in the family")
                % {"where": where, "code": code}
            )
        typed = engine.format_answer(value)
        verdict = engine.grade(
            family, data.givens, typed, tolerance=tolerance, grading_key=data.grading_key
        )
        named, _ = family.mistake_feedback(code, data.grading_key)
        if verdict.status != "incorrect" or verdict.misconception != named:
            if verdict.detail.get("finding") == "property":
                failures.append(
                    gettext(
                        "%(where)s: mistake %(code)s typed as '%(typed)s' fails %(check)s first, "
                        "which names misconception %(named_by_check)s, not %(named)s: give that "
                        "check the mistake's misconception or change the mistake"
                    )
                    % {
                        "where": where,
                        "code": code,
                        "typed": typed,
                        "check": verdict.detail["diagnosis"],
                        "named_by_check": verdict.misconception,
                        "named": named,
                    }
                )
                continue
            failures.append(
                gettext(
                    "%(where)s: mistake %(code)s typed as '%(typed)s' grades %(status)s with "
                    "misconception %(misconception)s, not %(named)s"
                )
                % {
                    "where": where,
                    "code": code,
                    "typed": typed,
                    "status": verdict.status,
                    "misconception": verdict.misconception,
                    "named": named,
                }
            )
    return failures


def problem_failures(problem: Problem, seeds: range) -> list[str]:
    """Every way a problem's variants fail the bank's promises, one line each."""
    failures = []
    family = engine.get_family(problem.family)
    tolerance = problem_tolerance(problem)
    codes = set(family.mistakes)
    if problem.family == engine.FORMULA_FAMILY:
        codes = set(engine.mistake_misconceptions(problem.params).values())
    known = set(Misconception.objects.filter(code__in=codes).values_list("code", flat=True))
    for code in sorted(codes - known):
        failures.append(
            gettext("%(problem)s: mistake %(code)s names no misconception in the bank")
            % {"problem": problem.slug, "code": code}
        )
    if problem.family == engine.FORMULA_FAMILY:
        checks = engine.property_misconceptions(problem.params)
        known = set(
            Misconception.objects.filter(code__in=checks.values()).values_list("code", flat=True)
        )
        for check, code in checks.items():
            if code not in known:
                failures.append(
                    gettext("%(problem)s: %(check)s names misconception %(code)s, not in the bank")
                    % {"problem": problem.slug, "check": check, "code": code}
                )
    for seed in seeds:
        where = gettext("%(problem)s seed %(seed)s") % {"problem": problem.slug, "seed": seed}
        try:
            data = variant_data(problem, seed)
        except Exception as exc:  # any failure to generate is what this command must report
            failures.append(
                gettext("%(where)s: cannot generate: %(error)s") % {"where": where, "error": exc}
            )
            continue
        if not _finite(data.givens):
            failures.append(
                gettext("%(where)s: givens are not all finite: %(givens)s")
                % {"where": where, "givens": data.givens}
            )
        if not np.all(np.isfinite(data.answer)):
            failures.append(gettext("%(where)s: answer is not finite") % {"where": where})
            continue
        typed = engine.format_answer(data.answer)
        key = data.grading_key
        verdict = engine.grade(family, data.givens, typed, tolerance=tolerance, grading_key=key)
        if verdict.status != "correct":
            failures.append(
                gettext("%(where)s: the answer typed as '%(typed)s' grades %(status)s")
                % {"where": where, "typed": typed, "status": verdict.status}
            )
        values = {**data.givens.get("values", {}), **key.get("hidden_values", {})}
        properties = key.get("properties", [])
        if failed := engine.right_answer_failure(properties, data.answer, values, tolerance):
            number, why = failed
            failures.append(
                gettext("%(where)s: property check %(number)s %(why)s")
                % {"where": where, "number": number, "why": why}
            )
        shape = family.answer_shape(data.givens)
        zero = engine.format_answer(np.zeros(shape)) if shape else "0"
        zero_verdict = engine.grade(family, data.givens, zero, tolerance=tolerance, grading_key=key)
        if zero_verdict.status != "incorrect":
            failures.append(gettext("%(where)s: 0 does not grade incorrect") % {"where": where})
        failures.extend(_unrecognised_mistakes(problem, family, seed, data, tolerance))
    return failures


class Command(BaseCommand):
    help = (
        "Generate variants of every problem and verify them: finite givens and answers, the answer "
        "grades correct and has every property its checks state, each listed mistake that differs "
        "from the answer grades incorrect with its own misconception, 0 grades incorrect."
    )

    def add_arguments(self, parser):
        parser.add_argument("--variants", type=int, default=200, help="Seeds 0..N-1 per problem.")

    def handle(self, *args, variants, **options):
        problems = list(Problem.objects.order_by("slug"))
        if not problems:
            raise CommandError(gettext("No problems in the database; run import_bank first."))
        failures = []
        for problem in problems:
            found = problem_failures(problem, range(variants))
            if found:
                status = ngettext("%(count)s failure", "%(count)s failures", len(found)) % {
                    "count": len(found)
                }
            else:
                status = gettext("ok")
            counted = ngettext("%(count)s variant", "%(count)s variants", variants) % {
                "count": variants
            }
            self.stdout.write(f"{problem.slug:<28} {counted}  {status}")
            failures.extend(found)
        for line in failures[:50]:
            self.stderr.write(line)
        if failures:
            raise CommandError(
                ngettext(
                    "%(count)s failure in %(problems)s problems.",
                    "%(count)s failures in %(problems)s problems.",
                    len(failures),
                )
                % {"count": len(failures), "problems": len(problems)}
            )
        passed = ngettext(
            "The %(count)s problem passed.", "All %(count)s problems passed.", len(problems)
        ) % {"count": len(problems)}
        self.stdout.write(self.style.SUCCESS(passed))
