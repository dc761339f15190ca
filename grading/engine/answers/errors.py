"""The one error of the answer reader: every refusal is a ParseError worded for the learner."""

from grading.engine.i18n import gettext as _
from grading.engine.i18n import gettext_noop


class _Translated:
    """A sentence translated each time it is written out (str(), %s, an f-string), so a
    module-level constant speaks the language of the request that reads it."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __str__(self) -> str:
        return _(self.message)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


ALLOWED = _Translated(gettext_noop("you can use numbers, + − × / ^, sqrt, exp, ln, log, e, pi"))
EMPTY_MESSAGE = _Translated(gettext_noop("Enter an answer"))


class ParseError(ValueError):
    """A learner's text could not be read as a number; .message says why, for the learner."""

    def __init__(self, message: str, column: int | None = None) -> None:
        message = str(message)
        super().__init__(message)
        self.message = message
        # Where in an instructor's formula the fault starts, counting from 1, when known.
        self.column = column
