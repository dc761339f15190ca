"""Benchmark of the learner's pages in English and in German: what translation costs a page.

Run as `.venv/bin/python bench/language_bench.py` (`make bench` does). In one process, on the
same data as bench/pages_bench.py (a 16-item exam in progress, a submitted one, a practice
problem answered with a named mistake), it times the attempt page, the practice page, the
results page and the lesson, in rounds that alternate the browser's language (no
Accept-Language: English; `de-DE`: German), so a machine's drift hits both alike, and the page
scripts' catalog in German. Reports the median ms per page each way and the ratio German /
English. The catalogs must be built first (`make catalogs`; `make bench` does).

Prints a table and writes bench-results/languages.json.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

# pages_bench sets Django up on import (its settings, an in-memory database), as it runs alone.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from django.test.utils import setup_test_environment
from pages_bench import ROOT, prepare

from courses.models import Lesson

WARM_UP = 3
ROUNDS = 8
REQUESTS_PER_ROUND = 10
LANGUAGES = {"en": {}, "de": {"HTTP_ACCEPT_LANGUAGE": "de-DE,de;q=0.9"}}


def timed_get(client, url: str, headers: dict) -> float:
    start = time.perf_counter()
    response = client.get(url, **headers)
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status_code == 200, (url, response.status_code)
    return elapsed


def main() -> None:
    setup_test_environment()
    pages = prepare()
    lesson = Lesson.objects.order_by("pk").first()
    client = pages["practice"][0]
    pages["lesson"] = (client, lesson.get_absolute_url())
    german = pages["attempt"][0].get(pages["attempt"][1], **LANGUAGES["de"])
    assert 'lang="de"' in german.content.decode(), "the German catalog is not built"
    samples = {name: {code: [] for code in LANGUAGES} for name in pages}
    for page_client, url in pages.values():
        for headers in LANGUAGES.values():
            for _ in range(WARM_UP):
                page_client.get(url, **headers)
    for round_number in range(ROUNDS):
        order = list(LANGUAGES) if round_number % 2 == 0 else list(reversed(LANGUAGES))
        for code in order:
            for name, (page_client, url) in pages.items():
                for _ in range(REQUESTS_PER_ROUND):
                    samples[name][code].append(timed_get(page_client, url, LANGUAGES[code]))
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "pages": {},
    }
    for name, by_language in samples.items():
        english = statistics.median(by_language["en"])
        german = statistics.median(by_language["de"])
        report["pages"][name] = {
            "english_ms": round(english, 2),
            "german_ms": round(german, 2),
            "ratio": round(german / english, 3),
        }
    print(f"Pages in English and German (median of {ROUNDS}×{REQUESTS_PER_ROUND} requests)")
    print(f"{'page':<14} {'English ms':>11} {'German ms':>10} {'ratio':>7}")
    for name, row in report["pages"].items():
        print(f"{name:<14} {row['english_ms']:>11} {row['german_ms']:>10} {row['ratio']:>7}")
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "languages.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
