"""What a bank that cannot be imported reports: every issue, each with its location."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BankIssue:
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class BankError(Exception):
    """A bank that cannot be imported; `issues` lists every problem found, with its location."""

    def __init__(self, issues: list[BankIssue]):
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))
