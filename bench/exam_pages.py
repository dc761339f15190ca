"""The pure parts of the exam-day benchmark: reading the pages' forms as a browser would, the
browser's cookie jar, the answer sheets learners send (as the form, or as the page's script sends
it), and percentiles.

Nothing here imports Django or Locust, so tests/bench/ checks it on its own. Pages are read with
regular expressions over the tags the forms are made of (not a full HTML parser): the load
generator reads thousands of attempt pages on the same two cores as the app it measures.
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import math
import random
import re
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie

TAG = re.compile(r"<(form|input|textarea|/form)\b([^>]*)>", re.IGNORECASE)
ATTRIBUTE = re.compile(
    r'([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|\'([^\']*)\'|([^\s>]+)))?'
)
ITEM_FIELD = re.compile(r"^item-(\d+)-(answer|choice)$")


class PageError(ValueError):
    """A page lacks the form a learner needs next (a refusal, an error page, a sign-in page)."""


def attributes(text: str) -> dict[str, str]:
    """The attributes of one tag, unescaped: `type="radio" checked` → {"type": "radio",
    "checked": ""}."""
    found = {}
    for match in ATTRIBUTE.finditer(text):
        value = next((group for group in match.groups()[1:] if group is not None), "")
        found[match.group(1).lower()] = html.unescape(value)
    return found


@dataclass(frozen=True)
class Form:
    """A form's action and its fields in page order: hidden values, and per item its kind."""

    action: str
    hidden: dict[str, str]
    # Item id → "text", or the choice values offered by its radio buttons or checkboxes.
    items: dict[int, str | tuple[str, ...]] = field(default_factory=dict)
    multiple: frozenset[int] = frozenset()


def form(page: str, *, action_contains: str = "", form_id: str = "") -> Form:
    """The first form whose action contains `action_contains` (and whose id is `form_id`)."""
    current: dict | None = None
    for match in TAG.finditer(page):
        name, attrs = match.group(1).lower(), attributes(match.group(2))
        if name == "form":
            if action_contains in attrs.get("action", "") and form_id in ("", attrs.get("id")):
                current = {"action": attrs.get("action", ""), "hidden": {}, "items": {}}
                current["multiple"] = set()
        elif name == "/form":
            if current is not None:
                return Form(
                    action=current["action"],
                    hidden=current["hidden"],
                    items=current["items"],
                    multiple=frozenset(current["multiple"]),
                )
        elif current is not None:
            _field(current, name, attrs)
    raise PageError(f"no form with action containing {action_contains!r} (id {form_id!r})")


def _field(current: dict, tag: str, attrs: dict[str, str]) -> None:
    name, kind = attrs.get("name", ""), attrs.get("type", "text").lower()
    if tag == "input" and kind == "hidden":
        current["hidden"][name] = attrs.get("value", "")
        return
    match = ITEM_FIELD.match(name)
    if not match:
        return
    item = int(match.group(1))
    if match.group(2) == "answer":
        current["items"][item] = "text"
    else:
        current["items"][item] = (*current["items"].get(item, ()), attrs.get("value", ""))
        if kind == "checkbox":
            current["multiple"].add(item)


def sheet_fields(sheet: Form, *, save: int, learner: int, action: str) -> tuple[list, dict]:
    """The fields a learner sends for the save numbered `save` (0, 1, …), and the answer per item.

    Every item's answer differs from the one before, so each save records a new response per
    item and the database check can count them: numbers `<save+1>.<learner mod 100>` (the bench
    exam's problems take one number), and the choice after the last one chosen.
    """
    fields: list[tuple[str, str]] = list(sheet.hidden.items())
    answers: dict[str, str | list[int]] = {}
    for item, kind in sheet.items.items():
        if kind == "text":
            text = f"{save + 1}.{learner % 100:02d}"
            fields.append((f"item-{item}-answer", text))
            answers[str(item)] = text
        else:
            choice = kind[(save + learner) % len(kind)]
            fields.append((f"item-{item}-choice", choice))
            answers[str(item)] = [int(choice)]
    fields.append(("action", action))
    return fields, answers


def with_token(sheet: Form, token: str) -> Form:
    """The sheet as the page's script leaves it after a save: the fresh submission token from
    the save's JSON answer in place of the page's."""
    return dataclasses.replace(sheet, hidden={**sheet.hidden, "token": token})


def multipart(fields: list[tuple[str, str]], *, boundary: str) -> tuple[str, bytes]:
    """Fields as a browser's fetch sends a FormData (the page's script does): the content type,
    multipart/form-data, and the body. Field names here are plain ASCII, values never hold the
    boundary (the caller picks a random one)."""
    lines: list[str] = []
    for name, value in fields:
        lines += [f"--{boundary}", f'Content-Disposition: form-data; name="{name}"', "", value]
    lines += [f"--{boundary}--", ""]
    return f"multipart/form-data; boundary={boundary}", "\r\n".join(lines).encode()


def hidden(page_form: Form, name: str) -> str:
    try:
        return page_form.hidden[name]
    except KeyError:
        raise PageError(f"the form {page_form.action} has no {name!r} field") from None


class Cookies:
    """A browser's cookies for one site: kept from Set-Cookie, sent back as one Cookie header.

    Production settings mark softgrade's cookies Secure; behind the TLS proxy a browser sends
    them, and on the bench's plain-HTTP loopback this jar does the same. A cookie set with
    Max-Age 0 or an empty value (Django's delete_cookie) is dropped.
    """

    def __init__(self, initial: dict[str, str] | None = None) -> None:
        self.values: dict[str, str] = dict(initial or {})

    def update(self, set_cookie_headers: list[str]) -> None:
        for header in set_cookie_headers:
            jar = SimpleCookie()
            try:
                jar.load(header)
            except CookieError:
                continue
            for name, morsel in jar.items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.values.pop(name, None)
                else:
                    # As sent (quoted if it was): Django unquotes it on the way back in.
                    self.values[name] = morsel.coded_value

    def header(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.values.items())


def arrivals(count: int, *, seconds: float, opening: float, seed: int = 22) -> list[float]:
    """When each of `count` learners opens the quiz page: spread over the `seconds` before the
    opening instant, one at a random moment of each of `count` equal slots (so the class
    arrives at a steady rate, never all at once), in slot order; all at the opening instant
    when `seconds` is 0."""
    if count < 0 or seconds < 0:
        raise ValueError("learners and seconds of arrival cannot be negative")
    rng = random.Random(seed)
    slot = seconds / count if count else 0.0
    return [opening - seconds + (n + rng.random()) * slot for n in range(count)]


def start_token(page: str, cookies: Cookies) -> str:
    """The CSRF token a learner's start sends: the start form's (the waiting room shows it,
    its button waiting for the instant), else any other form's on the page (the sign-out
    form's), else the CSRF cookie's. A page with none of them cannot start an attempt."""
    with contextlib.suppress(PageError):
        return hidden(form(page, action_contains="/start/"), "csrfmiddlewaretoken")
    for match in TAG.finditer(page):
        attrs = attributes(match.group(2))
        if match.group(1).lower() == "input" and attrs.get("name") == "csrfmiddlewaretoken":
            return attrs.get("value", "")
    if cookies.values.get("csrftoken"):
        return cookies.values["csrftoken"]
    raise PageError("the quiz page has no CSRF token and no CSRF cookie was set")


def percentile(samples: list[float], fraction: float) -> float:
    """The nearest-rank percentile: the smallest sample with at least `fraction` of all samples
    at or below it (p50 of [1, 2, 3, 4] is 2, p99 of 100 samples is the 99th)."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def summary(samples: list[float]) -> dict[str, float | int]:
    """Count, p50, p95, p99 and max of latencies in ms, rounded to 0.1 ms."""
    if not samples:
        return {"count": 0}
    return {
        "count": len(samples),
        "p50_ms": round(percentile(samples, 0.50), 1),
        "p95_ms": round(percentile(samples, 0.95), 1),
        "p99_ms": round(percentile(samples, 0.99), 1),
        "max_ms": round(max(samples), 1),
    }
