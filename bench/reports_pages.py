"""The instructor reports benchmark's requests: every /teach/ report page of the bench quiz, the
statistics endpoint, the gradebook CSV and the grades API, each timed through Django's whole
request stack (middleware, sessions or the API key, templates) with the test client.

`report_requests(data)` lists them with their goal (issue 13: a report page or the statistics
endpoint under 1 s, a gradebook CSV for every learner under 2 s); `measure` times each after one
untimed request (templates compiled, connections open), `repeats` times, and gives the median and
the 95th percentile (nearest rank: with a few repeats, the slowest). A streamed response (the
CSV files) is read to its end inside the timing. A page that does not answer 200 stops the run:
a fast error page measures nothing.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass

from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from bench.reports_data import ReportsData
from grading.models import Attempt

PAGE_GOAL = 1.0  # seconds: every report page and the statistics endpoint
GRADEBOOK_GOAL = 2.0  # seconds: a gradebook CSV of every learner


@dataclass(frozen=True)
class Request:
    name: str
    url: str
    goal: float
    api: bool = False  # with the course's API key instead of the instructor's session
    cold: bool = False  # the cache emptied before each request (a page that caches its result)


@dataclass(frozen=True)
class Timing:
    request: Request
    median: float
    p95: float
    cpu: float  # median CPU seconds of this process (the database server's work is not in it)
    size: int  # bytes of the last response

    @property
    def passed(self) -> bool:
        return self.p95 < self.request.goal


class BenchError(Exception):
    pass


def report_requests(data: ReportsData) -> list[Request]:
    """Every report of the bench quiz, in the order an instructor meets them."""
    course, quiz = data.course.slug, data.quiz.slug
    question = next(item for item in data.items if item.question_id)
    problem_item = next(item for item in data.items if item.problem_id)
    problem = problem_item.problem.slug
    attempt = Attempt.objects.filter(quiz=data.quiz).order_by("pk").first()
    grid = reverse("teaching:quiz-results", args=[quiz])
    statistics_page = reverse("teaching:quiz-statistics", args=[quiz])
    api = f"/api/v1/quizzes/{quiz}/"
    page = PAGE_GOAL
    return [
        Request("teaching home", reverse("teaching:courses"), page),
        Request("course page", reverse("teaching:course", args=[course]), page),
        *(
            Request(f"results grid, {rule} attempts", f"{grid}?attempts={rule}", page)
            for rule in ("first", "best", "last", "all")
        ),
        Request("results grid, by LMS context", f"{grid}?group=lms", page),
        Request("statistics page, first attempts", statistics_page, page),
        Request("statistics page, all attempts", f"{statistics_page}?attempts=all", page),
        Request(
            "response analysis, a question",
            reverse("teaching:item-responses", args=[quiz, question.pk]),
            page,
        ),
        Request(
            "response analysis, a problem",
            reverse("teaching:item-responses", args=[quiz, problem_item.pk]),
            page,
        ),
        Request("course problems", reverse("teaching:course-problems", args=[course]), page),
        Request(
            "facility by parameter",
            reverse("teaching:problem-parameters", args=[course, problem]),
            page,
        ),
        Request(
            "new misconceptions, cold",
            reverse("teaching:problem-misconceptions", args=[course, problem]),
            page,
            cold=True,
        ),
        Request(
            "misconception profile, course",
            reverse("teaching:course-misconceptions", args=[course]),
            page,
        ),
        Request(
            "misconception profile, a learner",
            reverse("teaching:learner-profile", args=[course, attempt.user_id]),
            page,
        ),
        Request("staff attempt view", reverse("teaching:attempt", args=[attempt.pk]), page),
        Request(
            "override form",
            reverse("teaching:item-override", args=[attempt.pk, question.pk]),
            page,
        ),
        Request(
            "regrade preview, a question",
            reverse("teaching:item-regrade", args=[question.pk]),
            page,
        ),
        Request(
            "regrade preview, a problem",
            reverse("teaching:item-regrade", args=[problem_item.pk]),
            page,
        ),
        Request("statistics API, first", f"{api}statistics/", page, api=True),
        Request("statistics API, all", f"{api}statistics/?attempts=all", page, api=True),
        Request("statistics CSV, first", f"{api}statistics.csv?format=csv", page, api=True),
        Request(
            "statistics CSV, all", f"{api}statistics.csv?format=csv&attempts=all", page, api=True
        ),
        Request(
            "gradebook CSV (best)",
            reverse("teaching:quiz-gradebook", args=[quiz]) + "?attempts=best",
            GRADEBOOK_GOAL,
        ),
        Request("grades API, first page", f"/api/v1/grades/?course={course}", page, api=True),
        Request(
            "grades API CSV",
            f"/api/v1/grades.csv?format=csv&course={course}",
            GRADEBOOK_GOAL,
            api=True,
        ),
    ]


def clients(data: ReportsData) -> tuple[Client, Client]:
    """The instructor's signed-in client and a client with the course's API key."""
    staff = Client()
    staff.force_login(data.instructor)
    key = Client(HTTP_AUTHORIZATION=f"Bearer {data.token}")
    return staff, key


def _get(client: Client, request: Request) -> tuple[float, float, int]:
    if request.cold:
        cache.clear()
    cpu = time.process_time()
    start = time.perf_counter()
    response = client.get(request.url)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    if response.status_code != 200:
        raise BenchError(f"{request.name}: {request.url} answered {response.status_code}")
    return elapsed, cpu, len(body)


def percentile(samples: list[float], share: float) -> float:
    """The nearest-rank percentile: the smallest sample with `share` of them at or below it."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def measure(data: ReportsData, *, repeats: int, only: str = "") -> list[Timing]:
    """Each request (those whose name contains `only`) once untimed, then `repeats` times."""
    staff, key = clients(data)
    timings = []
    for request in report_requests(data):
        if only not in request.name:
            continue
        client = key if request.api else staff
        _get(client, request)
        samples, cpus, size = [], [], 0
        for _ in range(repeats):
            elapsed, cpu, size = _get(client, request)
            samples.append(elapsed)
            cpus.append(cpu)
        median, p95 = statistics.median(samples), percentile(samples, 0.95)
        timings.append(Timing(request, median, p95, statistics.median(cpus), size))
    return timings


def table(timings: list[Timing]) -> str:
    lines = [
        f"{'report':<36} {'median s':>9} {'p95 s':>7} {'CPU s':>7} {'goal s':>7} {'KiB':>7}  result"
    ]
    for timing in timings:
        lines.append(
            f"{timing.request.name:<36} {timing.median:>9.3f} {timing.p95:>7.3f} "
            f"{timing.cpu:>7.3f} "
            f"{timing.request.goal:>7.1f} {timing.size / 1024:>7.0f}  "
            f"{'PASS' if timing.passed else 'MISS'}"
        )
    return "\n".join(lines)
