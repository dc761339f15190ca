"""Benchmark of new-misconception discovery and the problem pages that show it.

Run as `.venv/bin/python bench/discovery_bench.py` (`make bench` does; DATABASE_URL picks the
database, an in-memory SQLite one by default). It:

1. times teaching.discovery.mistakes.discover alone on 300, 3,000 and 10,000 unexplained
   wrong answers to Var(q·k) = d_k σq² σk² (a fifth of them × σq, the rest noise), the median of
   a few runs;
2. makes a course whose formula problem (the same answer) has ANSWERS learners' practice
   variants, each answered wrong once (graded by the engine, so each response's detail is what
   grading stores), a fifth × σq, and times the new-misconceptions page cold (the cache emptied:
   discovery runs on the most recent MAX_ANSWERS answers) and warm (the cached result), and the
   facility-by-parameter page, with Django's test client.

Prints a table and writes bench-results/discovery.json.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
os.environ.setdefault("DATABASE_URL", "sqlite:///:memory:")
warnings.filterwarnings("ignore", message="No directory at")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402

from courses.models import Course, Lesson, Problem  # noqa: E402
from grading import engine  # noqa: E402
from grading.models import Response, Variant  # noqa: E402
from grading.services.verdicts import verdict_fields  # noqa: E402
from teaching.discovery.data import MAX_ANSWERS  # noqa: E402
from teaching.discovery.mistakes import WrongAnswer, discover  # noqa: E402

SIZES = {300: 5, 3_000: 3, 10_000: 1}  # answers: runs
ANSWERS = 5_000  # learners on the pages, one wrong answer each
PAGE_RUNS = 3
D_K = (16, 32, 64, 128, 256, 512)
SIGMAS = (0.5, 1.0, 1.5, 2.0, 3.0)


def wrong_value(rng: np.random.Generator, answer: float, sigma_q: float, i: int) -> float:
    """× σq for a fifth of the learners; the rest a value off by up to 20 times, or a small
    whole number."""
    if i % 5 == 0:
        return answer * sigma_q
    if i % 2:
        return round(answer * float(np.exp(rng.uniform(-3, 3))), 2)
    return float(rng.integers(0, 50))


def time_discover() -> dict:
    rng = np.random.default_rng(1)
    report = {}
    for size, runs in SIZES.items():
        answers = []
        for i in range(size):
            d_k, sq, sk = (
                float(rng.choice(D_K)),
                float(rng.choice(SIGMAS)),
                float(rng.choice(SIGMAS)),
            )
            answer = d_k * sq**2 * sk**2
            value = wrong_value(rng, answer, sq, i)
            if abs(value - answer) > 0.01 * abs(answer):
                givens = {"d_k": d_k, "sigma_q": sq, "sigma_k": sk}
                answers.append(WrongAnswer(i, i, value, answer, givens, i))
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            groups = discover(answers)
            times.append(time.perf_counter() - start)
        report[size] = {
            "answers": len(answers),
            "seconds": round(statistics.median(times), 2),
            "groups": [(group.code, group.count) for group in groups],
        }
    return report


def prepare() -> tuple[Client, dict[str, str]]:
    call_command("migrate", verbosity=0)
    course = Course.objects.create(slug="bench-course", title="Bench course")
    lesson = Lesson.objects.create(course=course, slug="bench-lesson", title="Bench", body="-")
    params = {
        "variables": {
            "d_k": {"choices": list(D_K)},
            "sigma_q": {"choices": list(SIGMAS)},
            "sigma_k": {"choices": list(SIGMAS)},
        },
        "answer": "d_k * sigma_q^2 * sigma_k^2",
        "mistakes": {"std-for-variance": "sqrt(d_k) * sigma_q * sigma_k"},
        "prompt": "d_k = {@d_k@}, σq = {@sigma_q@}, σk = {@sigma_k@}: Var(q·k)?",
    }
    problem = Problem.objects.create(
        lesson=lesson, slug="bench-formula", title="Var(q·k)", family="formula", params=params
    )
    family = engine.get_family("formula")
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"learner{i}") for i in range(ANSWERS)
    )
    variants = []
    for i, user in enumerate(users):
        drawn = engine.make_variant(family, params, i)
        variants.append(
            Variant(
                problem=problem, user=user, counter=1, seed=i, family="formula",
                family_version=1, params=params, givens=drawn.givens,
                grading_key=drawn.grading_key, atol=0.0, rtol=0.01,
            )
        )  # fmt: skip
    variants = Variant.objects.bulk_create(variants)
    rng = np.random.default_rng(2)
    responses = []
    for i, variant in enumerate(variants):
        values = variant.givens["values"]
        answer = values["d_k"] * values["sigma_q"] ** 2 * values["sigma_k"] ** 2
        text = repr(wrong_value(rng, answer, values["sigma_q"], i))
        graded = engine.grade(family, variant.givens, text, grading_key=variant.grading_key)
        responses.append(
            Response(
                user_id=variant.user_id,
                variant=variant,
                text=text,
                **verdict_fields(graded, quiz=None),  # practice answers
            )
        )
    Response.objects.bulk_create(responses)
    teacher = get_user_model().objects.create(username="teacher", is_superuser=True)
    client = Client()
    client.force_login(teacher)
    args = [course.slug, problem.slug]
    return client, {
        "misconceptions": reverse("teaching:problem-misconceptions", args=args),
        "parameters": reverse("teaching:problem-parameters", args=args),
    }


def timed_get(client: Client, url: str) -> float:
    start = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise SystemExit(f"{url} answered {response.status_code}")
    return elapsed


def time_pages() -> dict:
    client, urls = prepare()
    cold, warm, parameters = [], [], []
    for _ in range(PAGE_RUNS):
        cache.clear()
        cold.append(timed_get(client, urls["misconceptions"]))
        warm.append(timed_get(client, urls["misconceptions"]))
        parameters.append(timed_get(client, urls["parameters"]))
    return {
        "learners": ANSWERS,
        "answers_looked_at": min(ANSWERS, MAX_ANSWERS),
        "misconceptions_cold_s": round(statistics.median(cold), 2),
        "misconceptions_cached_s": round(statistics.median(warm), 3),
        "parameters_s": round(statistics.median(parameters), 3),
    }


def main() -> None:
    setup_test_environment()
    report = {
        "machine": platform.platform(),
        "database": connection.vendor,
        "discover": time_discover(),
    }
    report["pages"] = time_pages()
    print("discover() alone:")
    for size, row in report["discover"].items():
        print(f"  {size:>6,} answers: {row['seconds']:>6.2f} s  groups {row['groups'][:3]}")
    pages = report["pages"]
    print(
        f"pages, {pages['learners']:,} learners' wrong answers on {report['database']}: "
        f"new misconceptions cold {pages['misconceptions_cold_s']} s "
        f"(discovery on the most recent {pages['answers_looked_at']:,}), "
        f"cached {pages['misconceptions_cached_s']} s; "
        f"by parameter {pages['parameters_s']} s"
    )
    folder = ROOT / "bench-results"
    folder.mkdir(exist_ok=True)
    (folder / "discovery.json").write_text(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
