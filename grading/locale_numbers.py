"""The decimal separator of the page's language, for the engine that reads and writes numbers.

One decision in one place: every page that grades a typed answer, shows givens, feedback or a
worked solution asks `decimal_separator()`. The engine knows two separators, "." and ","
(grading.engine.answers.separators); a language whose numbers use any other decimal mark gets
"," when it is not the point. The REST API and CSV exports never ask: they keep "." always.
"""

from __future__ import annotations

from django.utils.formats import get_format


def decimal_separator() -> str:
    """'.' or ',' for the active language, e.g. ',' while German is active."""
    return "." if get_format("DECIMAL_SEPARATOR") == "." else ","
