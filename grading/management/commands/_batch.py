"""What the `variant` and `grade` commands share: one JSON object per line in, one per line out."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from django.core.management.base import CommandError

from courses.models import Problem


class LineError(Exception):
    """One request cannot be answered; the batch reports it and goes on."""


def problem_by_slug(slug: Any) -> Problem:
    if not isinstance(slug, str) or not slug:
        raise LineError("'problem' must be a problem slug")
    try:
        return Problem.objects.get(slug=slug)
    except Problem.DoesNotExist as exc:
        raise LineError(f"no problem {slug!r}") from exc


def seed_value(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise LineError("'seed' must be a whole number ≥ 0")
    return value


def run_batch(stdout, handle_line: Callable[[dict], dict]) -> None:
    """Answer each stdin line in order; a bad line yields {"error": …} and the rest go on."""
    for number, raw in enumerate(sys.stdin, start=1):
        if not raw.strip():
            continue
        echo: dict[str, Any] = {"line": number}
        try:
            request = json.loads(raw)
            if not isinstance(request, dict):
                raise LineError("each line must be a JSON object")
            echo = {"problem": request.get("problem"), "seed": request.get("seed")}
            result = handle_line(request)
        except json.JSONDecodeError as exc:
            result = {**echo, "error": f"line {number} is not JSON: {exc.msg}"}
        except LineError as exc:
            result = {**echo, "error": str(exc)}
        stdout.write(json.dumps(result, ensure_ascii=False))


def single(stdout, handle_line: Callable[[dict], dict], request: dict) -> None:
    try:
        stdout.write(json.dumps(handle_line(request), ensure_ascii=False))
    except LineError as exc:
        raise CommandError(str(exc)) from exc
