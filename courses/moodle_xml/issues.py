"""What a Moodle XML file that cannot be imported reports: every issue, located."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _


@dataclass(frozen=True)
class MoodleIssue:
    """An error: where (the question's name and type, or the file), its line, and what."""

    where: str
    line: int | None
    message: str

    def __str__(self) -> str:
        line = _("line %(line)s") % {"line": self.line}
        if self.line is not None and line not in self.where:
            return f"{self.where} › {line}: {self.message}"
        return f"{self.where}: {self.message}"


class MoodleXmlError(Exception):
    """A file that cannot be imported; `issues` lists every problem found. Nothing was written."""

    def __init__(self, issues: list[MoodleIssue]):
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))
