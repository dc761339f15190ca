"""What other apps hear of learners' work, once it is committed."""

from __future__ import annotations

from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils.module_loading import import_string


def hooks_after_commit(setting: str, **kwargs) -> None:
    """Call the hooks a setting names (dotted paths) once the current transaction commits.

    Other apps (LTI grade passback) learn of a submission this way without grading importing
    them. `robust`: a failing hook is logged and never undoes or blocks the learner's work.
    """
    for path in getattr(settings, setting, ()):
        transaction.on_commit(partial(import_string(path), **kwargs), robust=True)
