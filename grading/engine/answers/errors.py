"""The one error of the answer reader: every refusal is a ParseError worded for the learner."""

ALLOWED = "you can use numbers, + − × / ^, sqrt, exp, ln, log, e, pi"
EMPTY_MESSAGE = "Enter an answer"


class ParseError(ValueError):
    """A learner's text could not be read as a number; .message says why, for the learner."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        # Where in an instructor's formula the fault starts, counting from 1, when known.
        self.column = column
