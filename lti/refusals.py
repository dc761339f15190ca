"""The one exception for a login or launch softgrade refuses (docs/lti.md lists every one)."""

from __future__ import annotations


class LaunchRefused(Exception):
    """A login or launch softgrade refuses: `message` for the learner, `reason` for the log."""

    def __init__(self, message: str, *, reason: str, status: int = 400):
        self.message = message
        self.reason = reason
        self.status = status
        super().__init__(f"{reason}: {message}")
