"""Benchmark of softgrade's grading engine: cost per graded answer and regrade throughput.

Run as `.venv/bin/python bench/engine_bench.py`. Prints a table and writes
bench-results/engine.json. Plain script, no Django: it times only the engine.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script from anywhere: make the repository importable without installing it.
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from grading.engine import (  # noqa: E402
    format_answer,
    get_family,
    grade,
    grade_many,
    make_variant,
)

SCALAR_TARGET_US = 100.0
HOSTILE_TARGET_US = 1000.0
REGRADE_TARGET_PER_S = 100_000.0
REGRADE_SIZE = 200_000


def median_call_us(call: Callable[[], object], number: int, repeats: int = 15) -> float:
    """Median over repeats of the mean time of `number` calls, in microseconds."""
    call()  # warm caches and lazy imports outside the timed runs
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            call()
        samples.append((time.perf_counter() - start) / number * 1e6)
    return statistics.median(samples)


def _grading(family_key: str, givens: dict, text: str) -> Callable[[], object]:
    family = get_family(family_key)
    return lambda: grade(family, givens, text)


def _diagonal(n: int) -> str:
    """A symmetric matrix whose rows do not sum to 0."""
    return format_answer(np.diag(np.linspace(0.05, 0.2, n)))


def _no_such_p(n: int) -> str:
    """Symmetric, rows summing to 0, the right signs, yet diag(p) − ppᵀ for no p."""
    return format_answer(0.24 * np.eye(n) - 0.08 * (np.ones((n, n)) - np.eye(n)) * 3 / (n - 1))


def per_answer_cases() -> list[tuple[str, Callable[[], object], float | None, int]]:
    """(label, one graded answer, target in µs or None, calls per timing sample)."""
    scalar = make_variant(get_family("dot-variance"), {}, 1)
    vector = make_variant(get_family("softmax"), {"min_length": 6, "max_length": 6}, 1)
    matrix = make_variant(get_family("softmax-jacobian"), {"min_length": 4, "max_length": 4}, 1)
    mistake_text = format_answer(next(iter(scalar.mistakes.values())))
    long_hostile = ",".join(["exp(1)/(exp(2)+exp(3))*2^-1-1+1"] * 16)[:1000]
    deep_hostile = "(" * 20 + "9^9" + ")" * 20
    s, v, m = scalar.givens, vector.givens, matrix.givens
    scalar_target, hostile_target = SCALAR_TARGET_US, HOSTILE_TARGET_US
    return [
        (
            "scalar, plain number",
            _grading("dot-variance", s, format_answer(scalar.answer)),
            scalar_target,
            400,
        ),
        ("scalar, expression", _grading("dot-variance", s, "64*1.5^2*2^2"), scalar_target, 400),
        ("scalar, named mistake", _grading("dot-variance", s, mistake_text), scalar_target, 400),
        ("scalar, wrong sign", _grading("dot-variance", s, "-576"), scalar_target, 400),
        # Wrong with no named mistake: every near miss, then the structural rules, are tried.
        ("scalar, unexplained", _grading("dot-variance", s, "123.456"), scalar_target, 400),
        ("vector (6 entries)", _grading("softmax", v, format_answer(vector.answer)), None, 400),
        (
            "vector, sums to 1.3",
            _grading("softmax", v, "[0.1, 0.1, 0.2, 0.2, 0.2, 0.5]"),
            None,
            400,
        ),
        ("matrix (4x4)", _grading("softmax-jacobian", m, format_answer(matrix.answer)), None, 200),
        ("matrix, rows not 0", _grading("softmax-jacobian", m, _diagonal(4)), None, 200),
        ("matrix, no such p", _grading("softmax-jacobian", m, _no_such_p(4)), None, 200),
        ("hostile 9^9^9", _grading("dot-variance", s, "9^9^9"), hostile_target, 400),
        ("hostile 10**10**10", _grading("dot-variance", s, "10**10**10"), hostile_target, 400),
        ("hostile 1000 chars", _grading("softmax-jacobian", m, long_hostile), hostile_target, 50),
        ("hostile deep brackets", _grading("dot-variance", s, deep_hostile), hostile_target, 200),
    ]


def stored_scalar_texts(count: int) -> tuple[dict, list[str]]:
    """Responses as learners store them for one variant: mostly numbers, some expressions."""
    family = get_family("dot-variance")
    variant = make_variant(family, {}, 1)
    answer = float(variant.answer)
    rng = np.random.default_rng(0)
    mistakes = [format_answer(v) for v in variant.mistakes.values()]
    texts = []
    for index in range(count):
        roll = index % 20
        if roll < 10:
            texts.append(f"{answer * (1 + rng.normal(0, 0.004)):.5g}")  # right, typed to 5 figures
        elif roll < 14:
            texts.append(mistakes[index % len(mistakes)])
        elif roll < 18:
            texts.append(f"{answer * rng.uniform(0.2, 3):.4g}")
        elif roll == 18:
            texts.append("64 * 1.5^2 * 2^2")
        else:
            texts.append("sqrt(x)")
    return variant.givens, texts


def regrade_rate(count: int, repeats: int = 5) -> tuple[float, dict[str, int]]:
    """Stored responses regraded per second with grade_many (median of repeats)."""
    family = get_family("dot-variance")
    givens, texts = stored_scalar_texts(count)
    durations = []
    verdicts = []
    for _ in range(repeats):
        start = time.perf_counter()
        verdicts = grade_many(family, givens, texts)
        durations.append(time.perf_counter() - start)
    statuses: dict[str, int] = {}
    for verdict in verdicts:
        statuses[verdict.status] = statuses.get(verdict.status, 0) + 1
    return count / statistics.median(durations), statuses


def main() -> int:
    """Time every case, print the table, write the JSON, and exit 1 if a target is missed."""
    rows = []
    for label, call, target, number in per_answer_cases():
        cost = median_call_us(call, number)
        rows.append({"case": label, "median_us": round(cost, 1), "target_us": target})
    rate, statuses = regrade_rate(REGRADE_SIZE)

    print(f"{'case':<28} {'median':>12} {'target':>12}  ok")
    for row in rows:
        target = row["target_us"]
        ok = "" if target is None else ("yes" if row["median_us"] < target else "NO")
        target_text = "-" if target is None else f"< {target:.0f} µs"
        print(f"{row['case']:<28} {row['median_us']:>9.1f} µs {target_text:>12}  {ok}")
    regrade_ok = rate >= REGRADE_TARGET_PER_S
    print(
        f"{'regrade ' + format(REGRADE_SIZE, ',') + ' scalars':<28} {rate:>9,.0f} /s "
        f"{'>= 100,000/s':>12}  {'yes' if regrade_ok else 'NO'}"
    )
    print(f"  statuses: {statuses}")

    results = {
        "per_answer": rows,
        "regrade": {
            "responses": REGRADE_SIZE,
            "per_second": round(rate),
            "target_per_second": REGRADE_TARGET_PER_S,
            "statuses": statuses,
        },
        "environment": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        },
    }
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "engine.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out_dir / 'engine.json'}")
    missed = [r for r in rows if r["target_us"] is not None and r["median_us"] >= r["target_us"]]
    return 1 if missed or not regrade_ok else 0


if __name__ == "__main__":
    sys.exit(main())
