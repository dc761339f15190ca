"""docs/lti.md lists every LTI refusal the code can raise, with its status and its message."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "lti.md"


@dataclass(frozen=True)
class Refusal:
    where: str
    reason: str  # the reason, or its fixed start when the code fills in the rest
    templated: bool
    status: int
    message: str | None  # None when the code builds it


def _text(node: ast.expr) -> tuple[str, bool] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, False
    if isinstance(node, ast.JoinedStr):
        first = node.values[0]
        prefix = first.value if isinstance(first, ast.Constant) else ""
        return prefix, True
    return None


def code_refusals() -> list[Refusal]:
    found = []
    for path in sorted((ROOT / "lti").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "LaunchRefused"):
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            reason, templated = _text(keywords["reason"])
            reason = re.split(r"[ (]", reason, maxsplit=1)[0]
            status = keywords["status"].value if "status" in keywords else 400
            message = _text(node.args[0])
            fixed = message[0] if message and not message[1] else None
            found.append(
                Refusal(f"{path.relative_to(ROOT)}:{node.lineno}", reason, templated, status, fixed)
            )
    return found


def documented_rows() -> list[tuple[list[str], int, str]]:
    section = DOC.read_text(encoding="utf-8").split("## Refusals", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 3 and cells[1].isdigit():
            rows.append((re.findall(r"`([^`]+)`", cells[0]), int(cells[1]), cells[2]))
    return rows


def test_the_code_raises_the_refusals_this_test_reads():
    refusals = code_refusals()
    assert len(refusals) >= 40
    assert any(r.reason == "unknown_state" and r.status == 400 for r in refusals)


def test_every_refusal_is_documented_with_its_status_and_message():
    rows = documented_rows()
    missing = [
        f"{r.where} {r.reason} {r.status} {r.message!r}"
        for r in code_refusals()
        if not any(_matches(row, r) for row in rows)
    ]
    assert missing == [], "not in docs/lti.md's Refusals:\n" + "\n".join(missing)


def _matches(row, refusal: Refusal) -> bool:
    reasons, status, message = row
    if refusal.templated:
        named = any(name.startswith(refusal.reason) for name in reasons)
    else:
        named = refusal.reason in reasons
    # "…" stands for what the code fills in; a note in brackets after the message is dropped.
    pattern = re.escape(re.sub(r" \([^)]*\)$", "", message)).replace("…", ".+")
    exact = refusal.message is None or re.fullmatch(pattern, refusal.message) is not None
    return named and status == refusal.status and exact
