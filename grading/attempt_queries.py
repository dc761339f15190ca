"""Which attempts a read sees: the one definition of a started attempt (a prepared one is in
no read) and of an attempt that counts (a preview counts nowhere), and the managers built on
them (grading.models.Attempt.objects and Attempt.prepared)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


def started_attempt(path: str = "") -> Q:
    """The one definition of an attempt that exists for anyone to see: every attempt but a
    prepared one (Attempt.Status.PREPARED), made ahead of its start and not started yet.

    Attempt.objects (the default manager, so every reverse relation too: user.attempts,
    quiz.attempts) holds only these; Attempt.prepared holds the others, for the one module that
    makes and starts them (grading/services/prepared.py). A prepared attempt therefore counts,
    shows and closes nowhere: limits, histories, results, gradebooks, statistics, APIs, LTI
    passback, the admin's lists and the overdue sweeps all read Attempt.objects.
    """
    field = f"{path}__status" if path else "status"
    return ~Q(**{field: "prepared"})


def counted_attempt(path: str = "") -> Q:
    """The one definition of an attempt that counts: every started attempt (started_attempt)
    but an instructor's preview.

    Attempts that count are the learners' record: statistics and every other report, the
    results grid, gradebooks and grades APIs, best scores, LTI passback, attempt limits and the
    learner's own counts. `path` reaches the attempt from another row ("attempt" for a Response
    or a Variant); `attempt__preview=False` matches only rows with an attempt, so a caller that
    keeps practice rows too adds `Q(attempt__isnull=True)` itself.
    """
    return Q(**{f"{path}__preview" if path else "preview": False}) & started_attempt(path)


class AttemptQuerySet(models.QuerySet):
    def counted(self) -> AttemptQuerySet:
        """The attempts that count (counted_attempt): previews left out."""
        return self.filter(counted_attempt())

    def previews(self) -> AttemptQuerySet:
        return self.filter(preview=True)


class StartedAttemptManager(models.Manager.from_queryset(AttemptQuerySet)):
    """The default manager: started attempts only (started_attempt).

    Django's advice is never to filter the base manager, which reaches a row from the rows
    related to it: Attempt keeps the plain one (response.attempt, deletion cascades and
    protections see a prepared attempt too), and only the default manager filters, so that a
    read that forgets a prepared attempt is the one that cannot show it.
    """

    def get_queryset(self) -> AttemptQuerySet:
        return super().get_queryset().filter(started_attempt())


class PreparedAttemptManager(models.Manager.from_queryset(AttemptQuerySet)):
    """Prepared attempts only: grading/services/prepared.py's, and nobody else's."""

    def get_queryset(self) -> AttemptQuerySet:
        return super().get_queryset().filter(status="prepared")
