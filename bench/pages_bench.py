"""Benchmark of the learner's pages in process: what rendering authored text once buys.

Run as `.venv/bin/python bench/pages_bench.py` (`make bench` does). In one process, on an
in-memory SQLite database with the shipped lesson imported, it:

1. makes a 16-item exam of the lesson (10 questions, 6 problems, shuffled as exams are), a
   learner's attempt at it with every item answered wrong (so the results page shows each
   choice's feedback and misconception), that attempt submitted, and a second learner's attempt
   in progress; a practice problem answered with a named mistake;
2. times the attempt page, the practice page and the results page with Django's test client,
   after a warm-up, in rounds that alternate the memo on and off (off: `render_memo()` resized to
   0 and the shared cache behind it keeping nothing, a switch of this bench only), so a
   machine's drift hits both alike; reports the median ms per page each way, the ratio, and how
   many texts each page converts once warm (the exam's attempt page comes from its stored sheet
   either way: grading/sheets.py);
3. checks the memo's bound: its resident memory (tracemalloc) against the bytes it counts, and
   what the problem statements of a 3,000-learner exam would take.

Prints a table and writes bench-results/pages.json.
"""

from __future__ import annotations

import io
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
os.environ.setdefault("DATABASE_URL", "sqlite:///:memory:")
# Static files are not collected for an in-process run, and no page here serves one.
warnings.filterwarnings("ignore", message="No directory at")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402

from courses import markup  # noqa: E402
from courses.memo import ENTRY_OVERHEAD_BYTES, BoundedMemo  # noqa: E402
from courses.models import Problem, Question, Quiz, QuizItem  # noqa: E402
from grading import engine  # noqa: E402
from grading.models import Variant  # noqa: E402
from grading.services.attempts import attempt_start, attempt_submit  # noqa: E402
from grading.services.practice import (  # noqa: E402
    practice_answer_submit,
    practice_variant_current,
)
from grading.services.responses import response_submit  # noqa: E402
from tests.factories import UserFactory  # noqa: E402

QUESTIONS = 10
PROBLEMS = 6
WARM_UP = 3  # requests per page before timing: the first ones compile templates, fill caches
ROUNDS = 8
REQUESTS_PER_ROUND = 10  # per page and mode
EXAM_LEARNERS = 3000  # for the memo's footprint estimate
SAMPLE_LEARNERS = 40


def wrong_text(variant: Variant) -> str:
    """A named mistake when the variant offers one, else the answer off by a third."""
    solution = engine.get_family(variant.family).solve(variant.givens, variant.grading_key)
    values = [*solution.mistakes.values(), solution.answer * 1.37]
    return engine.format_answer(values[0])


def prepare() -> dict[str, str]:
    """The exam, the attempts and the practice answer; the pages' addresses and their clients."""
    call_command("migrate", verbosity=0)
    call_command("import_bank", verbosity=0, stdout=io.StringIO())
    practice = Quiz.objects.get(slug="attention-practice")
    lesson = practice.lesson
    exam = Quiz.objects.create(
        lesson=lesson,
        slug="bench-exam",
        title="A 16-item exam",
        description="Sixteen items, feedback *after* you submit: $\\sqrt{d_k}$ and all.",
        mode=Quiz.Mode.EXAM,
        time_limit_minutes=60,
        tries_per_item=1,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        release_answers=Quiz.AnswerRelease.AFTER_SUBMISSION,
        shuffle_items=True,
        shuffle_choices=True,
        published=True,
    )
    questions = list(Question.objects.filter(lesson=lesson).order_by("pk")[:QUESTIONS])
    problems = list(Problem.objects.filter(lesson=lesson).order_by("pk")[:PROBLEMS])
    items = [*questions, *problems]
    for order, entry in enumerate(items):
        kind = "question" if isinstance(entry, Question) else "problem"
        QuizItem.objects.create(quiz=exam, order=order, points=1, **{kind: entry})

    finished, taking, practising = UserFactory(), UserFactory(), UserFactory()
    attempt = attempt_start(user=finished, quiz=exam)
    variants = {v.quiz_item_id: v for v in Variant.objects.filter(attempt=attempt)}
    for item in exam.items.select_related("question"):
        if item.question_id:
            wrong = item.question.choices.filter(is_correct=False).order_by("pk").first()
            response_submit(attempt=attempt, item=item, choice_ids=[wrong.pk])
        else:
            response_submit(attempt=attempt, item=item, text=wrong_text(variants[item.pk]))
    attempt_submit(attempt=attempt)
    in_progress = attempt_start(user=taking, quiz=exam)

    problem = problems[0]
    # Another learner: practice on an exam's problems waits until the exam is submitted.
    variant = practice_variant_current(user=practising, problem=problem)
    practice_answer_submit(user=practising, variant=variant, text=wrong_text(variant))

    clients = {}
    for name, learner in (("finished", finished), ("taking", taking), ("practising", practising)):
        clients[name] = Client()
        clients[name].force_login(learner)
    return {
        "attempt": (clients["taking"], reverse("attempt-take", kwargs={"pk": in_progress.pk})),
        "practice": (clients["practising"], reverse("practice", kwargs={"slug": problem.slug})),
        "results": (clients["finished"], reverse("attempt-results", kwargs={"pk": attempt.pk})),
    }


def timed_get(client: Client, url: str) -> float:
    start = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - start) * 1000
    if response.status_code != 200:
        raise SystemExit(f"{url} answered {response.status_code}")
    return elapsed


def conversions_per_page(client: Client, url: str) -> int:
    """How many texts one warm request converts (the memo on): 0 is 'rendered once'."""
    calls = 0
    convert = markup.convert_markup

    def counting(text: str, *, inline: bool = False):
        nonlocal calls
        calls += 1
        return convert(text, inline=inline)

    markup.convert_markup = counting
    try:
        client.get(url)
    finally:
        markup.convert_markup = convert
    return calls


def time_pages(pages: dict) -> dict:
    memo = markup.render_memo()
    budget = memo.max_bytes
    samples: dict[str, dict[str, list[float]]] = {n: {"on": [], "off": []} for n in pages}
    for client, url in pages.values():
        for _ in range(WARM_UP):
            timed_get(client, url)
    for round_number in range(ROUNDS):
        # Alternate which mode goes first, so neither always follows the other.
        modes = ("on", "off") if round_number % 2 == 0 else ("off", "on")
        for mode in modes:
            memo.resize(max_bytes=budget if mode == "on" else 0)
            # Off means off behind the memo too: the shared cache keeps nothing (a timeout of 0
            # expires at once) and forgets what it kept (courses/render_cache.py).
            settings.MARKUP_CACHE_SECONDS = 24 * 60 * 60 if mode == "on" else 0
            cache.clear()
            for name, (client, url) in pages.items():
                if mode == "on":
                    client.get(url)  # refill what the 'off' phase emptied; not timed
                for _ in range(REQUESTS_PER_ROUND):
                    samples[name][mode].append(timed_get(client, url))
    memo.resize(max_bytes=budget)
    report = {}
    for name, (client, url) in pages.items():
        on = statistics.median(samples[name]["on"])
        off = statistics.median(samples[name]["off"])
        report[name] = {
            "memo_off_ms": round(off, 2),
            "memo_on_ms": round(on, 2),
            "ratio": round(on / off, 3),
            "conversions_per_warm_request": conversions_per_page(client, url),
        }
    return report


def memo_footprint() -> dict:
    """The memo's counted bytes against its real memory, and a 3,000-learner exam's statements."""
    problems = list(Problem.objects.order_by("pk")[:PROBLEMS])
    texts = []
    for learner in range(SAMPLE_LEARNERS):
        for problem in problems:
            family = engine.get_family(problem.family)
            variant = engine.make_variant(family, problem.params, 1_000 + learner)
            texts.append(family.prompt(variant.givens))
    rendered = [markup.convert_markup(text) for text in texts]
    memo = BoundedMemo(max_bytes=2**30)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for text, html in zip(texts, rendered, strict=True):
        # Copies, so the memo's own strings are what tracemalloc sees being kept.
        key, value = text + " ", html + " "
        memo.put(
            (markup.RENDERER_VERSION, False, key),
            value,
            size=sys.getsizeof(key) + sys.getsizeof(value),
        )
    resident = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    counted = memo.size_bytes
    per_statement = statistics.mean(
        sys.getsizeof(t) + sys.getsizeof(h) + ENTRY_OVERHEAD_BYTES
        for t, h in zip(texts, rendered, strict=True)
    )
    return {
        "entries": len(memo),
        "counted_bytes": counted,
        "resident_bytes": resident,
        "resident_over_counted": round(resident / counted, 3),
        "bytes_per_problem_statement": round(per_statement),
        "exam_learners": EXAM_LEARNERS,
        "exam_statements_mib": round(per_statement * EXAM_LEARNERS * PROBLEMS / 2**20, 1),
        "memo_budget_mib": round(markup.render_memo().max_bytes / 2**20, 1),
    }


def main() -> None:
    setup_test_environment()
    pages = prepare()
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "exam": f"{QUESTIONS + PROBLEMS} items ({QUESTIONS} questions, {PROBLEMS} problems)",
        "pages": time_pages(pages),
        "memo": memo_footprint(),
    }
    print(f"Pages in process ({report['exam']}; median of {ROUNDS}×{REQUESTS_PER_ROUND} requests)")
    print(f"{'page':<10} {'memo off ms':>12} {'memo on ms':>11} {'ratio':>7} {'conversions':>12}")
    for name, row in report["pages"].items():
        print(
            f"{name:<10} {row['memo_off_ms']:>12.2f} {row['memo_on_ms']:>11.2f} "
            f"{row['ratio']:>7.3f} {row['conversions_per_warm_request']:>12}"
        )
    memo = report["memo"]
    print(
        f"memo: {memo['entries']} problem statements counted {memo['counted_bytes']} B, "
        f"resident {memo['resident_bytes']} B ({memo['resident_over_counted']}×); "
        f"{memo['exam_learners']} learners × {PROBLEMS} statements ≈ "
        f"{memo['exam_statements_mib']} MiB of a {memo['memo_budget_mib']} MiB budget"
    )
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "pages.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
