"""What learners do: variants they are given, attempts at quizzes, every response they submit.

A Variant stores its seed AND its givens (with the family version that made them), so a regrade or
an audit reads the stored numbers and never depends on the generator staying unchanged. Its grading
key holds whatever else grading needs that the learner is not shown (a formula problem's formulas).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.moments import moment_text
from courses.models import Choice, Problem, Question, Quiz, QuizItem
from grading.accommodation_models import QuizAccommodation
from grading.attempt_queries import (  # noqa: F401 (read from here by the rest of the code)
    AttemptQuerySet,
    PreparedAttemptManager,
    StartedAttemptManager,
    counted_attempt,
    started_attempt,
)
from grading.audit_models import AttemptDeletion, AuditRow, Regrade, ScoreChange
from grading.sheet_models import AttemptSheet

__all__ = [
    "Attempt",
    "AttemptDeletion",
    "AttemptSheet",
    "AuditRow",
    "PracticeStreak",
    "QuizAccommodation",
    "Regrade",
    "Response",
    "ScoreChange",
    "SolutionReveal",
    "Variant",
]


class Attempt(models.Model):
    class Status(models.TextChoices):
        # Made when its learner opened the quiz page (the waiting room before an exam opens):
        # number, draws, variants and order fixed, no clock. Starting it is one guarded update
        # (grading/services/prepared.py); until then it is in no read (started_attempt).
        PREPARED = "prepared", _("Prepared (not started)")
        IN_PROGRESS = "in_progress", _("In progress")
        SUBMITTED = "submitted", _("Submitted")
        # Time ran out at a quiz whose overdue attempts are "never submitted: no score"
        # (Quiz.overdue_handling): closed, but counted nowhere as a score.
        NEVER_SUBMITTED = "never_submitted", _("Never submitted")

    # No index of their own: the unique (user, quiz, number) and the (quiz, updated_at) index
    # lead with them, and every answer rewrites updated_at, so each index costs a write.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="attempts",
        db_index=False,
        verbose_name=_("user"),
    )
    quiz = models.ForeignKey(
        Quiz,
        on_delete=models.PROTECT,
        related_name="attempts",
        db_index=False,
        verbose_name=_("quiz"),
    )
    number = models.PositiveIntegerField(
        help_text=_("1 for a learner's first attempt at the quiz."), verbose_name=_("number")
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.IN_PROGRESS, verbose_name=_("status")
    )
    # A prepared attempt's is when it was prepared (the clean-up sweep's age); its start sets it.
    started_at = models.DateTimeField(auto_now_add=True, verbose_name=_("started at"))
    deadline = models.DateTimeField(
        null=True, blank=True, help_text=_("Empty: no time limit."), verbose_name=_("deadline")
    )
    submitted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("submitted at"))
    # Set when the server closed the attempt because time ran out before the learner submitted
    # (grading/services/overdue.py): submitted with the answers saved before the deadline, or
    # closed with no score, as the quiz chose. submitted_at is then the deadline.
    late = models.BooleanField(default=False, verbose_name=_("late"))
    score = models.FloatField(default=0.0, verbose_name=_("score"))
    max_score = models.FloatField(default=0.0, verbose_name=_("max score"))
    # The quiz's shuffle settings when the attempt started: an instructor who changes them later
    # never reorders an attempt a learner is taking or has taken (grading/ordering.py).
    shuffle_items = models.BooleanField(default=False, verbose_name=_("shuffle items"))
    shuffle_choices = models.BooleanField(default=False, verbose_name=_("shuffle choices"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    # An instructor's preview of the quiz as a learner sees it (grading.services.previews): the
    # same pages and policy, but it counts nowhere (counted_attempt) and is numbered in a series
    # of its own, so it never uses up, blocks or renumbers the user's own attempts.
    preview = models.BooleanField(default=False, verbose_name=_("preview"))
    # A prepared attempt's: what its quiz's items were when it was prepared
    # (grading.services.prepared.items_key); a start that finds them changed discards it.
    prepared_key = models.CharField(
        max_length=64, blank=True, editable=False, verbose_name=_("prepared key")
    )

    objects = StartedAttemptManager()
    prepared = PreparedAttemptManager()

    class Meta:
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")
        default_manager_name = "objects"
        ordering = ["-started_at"]
        constraints = [
            # Two simultaneous starts at the attempt limit cannot both win: the number is unique
            # (previews have their own series, so `preview` is part of the key).
            models.UniqueConstraint(
                fields=["user", "quiz", "preview", "number"], name="attempt_unique_number"
            ),
            # A learner has at most one attempt in progress at a quiz: simultaneous starts resume
            # it (grading.services.attempts.attempt_start_or_resume), never open a second. An
            # instructor's preview in progress is apart from their own attempt.
            models.UniqueConstraint(
                fields=["user", "quiz", "preview"],
                condition=Q(status="in_progress"),
                name="attempt_one_in_progress",
            ),
            # Page loads at the same moment prepare one attempt: the others find it.
            models.UniqueConstraint(
                fields=["user", "quiz", "preview"],
                condition=Q(status="prepared"),
                name="attempt_one_prepared",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["prepared", "in_progress"]) | Q(submitted_at__isnull=False),
                name="attempt_submitted_has_time",
            ),
            # No clock runs before the start.
            models.CheckConstraint(
                condition=~Q(status="prepared") | Q(deadline__isnull=True),
                name="attempt_prepared_has_no_deadline",
            ),
            # Only time running out closes an attempt unsubmitted.
            models.CheckConstraint(
                condition=~Q(status="never_submitted") | Q(late=True),
                name="attempt_never_submitted_when_time_ran_out",
            ),
        ]
        indexes = [
            models.Index(fields=["quiz", "updated_at"], name="attempt_quiz_updated"),
            # Every page that shows attempts first closes the overdue ones among them: a small
            # index of the open attempts' deadlines keeps that one query cheap.
            models.Index(
                fields=["deadline"],
                condition=Q(status="in_progress", deadline__isnull=False),
                name="attempt_open_deadline",
            ),
        ]
        # Deleting a learner's attempt destroys evidence: its own permission, never implied by
        # being staff (superusers hold every permission), and logged (grading/deletions.py).
        permissions = [("delete_attempt_record", "Can delete a learner's attempt (logged)")]

    def __str__(self) -> str:
        kind = str(_("preview")) + " " if self.preview else ""
        return f"{self.user} · {self.quiz.slug} {kind}#{self.number} ({self.get_status_display()})"


class Variant(models.Model):
    """One generated instance of a problem, for one learner's practice or one attempt's item."""

    problem = models.ForeignKey(
        Problem, on_delete=models.PROTECT, related_name="variants", verbose_name=_("problem")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="variants",
        help_text=_("Empty for an instructor's preview."),
        verbose_name=_("user"),
    )
    attempt = models.ForeignKey(
        Attempt,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="variants",
        verbose_name=_("attempt"),
    )
    quiz_item = models.ForeignKey(
        QuizItem,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="variants",
        verbose_name=_("quiz item"),
    )
    counter = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_("The learner's n-th practice variant of this problem."),
        verbose_name=_("counter"),
    )
    seed = models.BigIntegerField(verbose_name=_("seed"))
    family = models.CharField(max_length=60, verbose_name=_("family"))
    family_version = models.PositiveIntegerField(verbose_name=_("family version"))
    params = models.JSONField(default=dict, verbose_name=_("params"))
    givens = models.JSONField(
        help_text=_("What the learner is shown: the numbers of the prompt."),
        verbose_name=_("givens"),
    )
    # Never in a page or an API response for learners: a formula problem keeps its answer and
    # mistake formulas here, so the variant grades the same way after the problem is edited.
    grading_key = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("What grading needs beyond the givens; never shown."),
        verbose_name=_("grading key"),
    )
    # The tolerance in force when the variant was made, so a later edit cannot regrade it.
    atol = models.FloatField(verbose_name=_("atol"))
    rtol = models.FloatField(verbose_name=_("rtol"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("variant")
        verbose_name_plural = _("variants")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["attempt", "quiz_item"],
                condition=Q(attempt__isnull=False),
                name="variant_one_per_attempt_item",
            ),
            models.UniqueConstraint(
                fields=["user", "problem", "counter"],
                condition=Q(attempt__isnull=True, counter__isnull=False),
                name="variant_unique_practice_counter",
            ),
            models.CheckConstraint(
                condition=(Q(attempt__isnull=True) & Q(quiz_item__isnull=True))
                | (Q(attempt__isnull=False) & Q(quiz_item__isnull=False)),
                name="variant_attempt_and_item_together",
            ),
        ]

    def __str__(self) -> str:
        return _("%(problem)s seed %(seed)s") % {"problem": self.problem.slug, "seed": self.seed}


class Response(models.Model):
    """Every submission, invalid ones included; only `counts_as_try` ones use up a try."""

    class Status(models.TextChoices):
        CORRECT = "correct", _("Correct")
        INCORRECT = "incorrect", _("Incorrect")
        INVALID = "invalid", _("Invalid input")
        RECORDED = "recorded", _("Recorded (graded on submission)")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="responses",
        verbose_name=_("user"),
    )
    # No index of its own: response_attempt_item (attempt, quiz_item) leads with it.
    attempt = models.ForeignKey(
        Attempt,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="responses",
        db_index=False,
        verbose_name=_("attempt"),
    )
    quiz_item = models.ForeignKey(
        QuizItem,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="responses",
        verbose_name=_("quiz item"),
    )
    variant = models.ForeignKey(
        Variant,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="responses",
        verbose_name=_("variant"),
    )
    question = models.ForeignKey(
        Question,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="responses",
        verbose_name=_("question"),
    )
    text = models.TextField(
        blank=True, help_text=_("What the learner typed, as typed."), verbose_name=_("text")
    )
    choices = models.ManyToManyField(
        Choice, blank=True, related_name="responses", verbose_name=_("choices")
    )
    status = models.CharField(max_length=16, choices=Status.choices, verbose_name=_("status"))
    score = models.FloatField(default=0.0, verbose_name=_("score"))
    counts_as_try = models.BooleanField(default=True, verbose_name=_("counts as try"))
    misconception = models.CharField(max_length=80, blank=True, verbose_name=_("misconception"))
    feedback = models.TextField(blank=True, verbose_name=_("feedback"))
    detail = models.JSONField(default=dict, blank=True, verbose_name=_("detail"))
    idempotency_key = models.CharField(
        max_length=200, blank=True, verbose_name=_("idempotency key")
    )
    request_fingerprint = models.CharField(
        max_length=64, blank=True, verbose_name=_("request fingerprint")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    # Not stored: True on an instance a service hands back as what an earlier request recorded
    # (a retry under the same Idempotency-Key, a double submit), so the API answers 200 and
    # Idempotent-Replayed rather than 201. The service decides; a clock comparison cannot tell
    # a concurrent twin's row from this request's own.
    replayed: bool = False

    class Meta:
        verbose_name = _("response")
        verbose_name_plural = _("responses")
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(variant__isnull=False) & Q(question__isnull=True))
                | (Q(variant__isnull=True) & Q(question__isnull=False)),
                name="response_answers_a_variant_or_a_question",
            ),
            models.UniqueConstraint(
                fields=["user", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="response_unique_idempotency_key",
            ),
        ]
        indexes = [models.Index(fields=["attempt", "quiz_item"], name="response_attempt_item")]

    def __str__(self) -> str:
        return f"{self.user} · {self.status} · {moment_text(self.created_at)}"


class PracticeStreak(models.Model):
    """Mastery per learner and problem: three correct in a row on fresh variants."""

    MASTERY = 3

    # No index of its own: the unique (user, problem) leads with it.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="streaks",
        db_index=False,
        verbose_name=_("user"),
    )
    problem = models.ForeignKey(
        Problem, on_delete=models.CASCADE, related_name="streaks", verbose_name=_("problem")
    )
    current = models.PositiveIntegerField(default=0, verbose_name=_("current"))
    best = models.PositiveIntegerField(default=0, verbose_name=_("best"))
    correct_total = models.PositiveIntegerField(default=0, verbose_name=_("correct total"))
    tries_total = models.PositiveIntegerField(default=0, verbose_name=_("tries total"))
    mastered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("mastered at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("practice streak")
        verbose_name_plural = _("practice streaks")
        constraints = [
            models.UniqueConstraint(fields=["user", "problem"], name="streak_one_per_problem"),
        ]

    def __str__(self) -> str:
        in_a_row = ngettext("%(count)s in a row", "%(count)s in a row", self.current)
        return f"{self.user} · {self.problem.slug}: " + in_a_row % {"count": self.current}

    @property
    def mastered(self) -> bool:
        return self.mastered_at is not None


class SolutionReveal(models.Model):
    """A learner was shown the worked solution of one of their practice variants, and when: from
    then on that variant takes no more answers (grading.services.solutions)."""

    # The unique variant says who revealed it too; kept for the instructor's and the API's lists.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="solution_reveals",
        verbose_name=_("user"),
    )
    variant = models.OneToOneField(
        Variant, on_delete=models.CASCADE, related_name="solution_reveal", verbose_name=_("variant")
    )
    # True when the learner gave up before the problem's solution_after_tries wrong tries.
    gave_up_early = models.BooleanField(default=False, verbose_name=_("gave up early"))
    revealed_at = models.DateTimeField(auto_now_add=True, verbose_name=_("revealed at"))

    class Meta:
        verbose_name = _("solution reveal")
        verbose_name_plural = _("solution reveals")
        ordering = ["-revealed_at", "-id"]

    def __str__(self) -> str:
        return _("%(user)s · solution of variant %(variant)s") % {
            "user": self.user,
            "variant": self.variant_id,
        }


# Imported last so Django finds the model; it names Attempt by its label, so there is no cycle.
from grading.draw_records import AttemptDraw  # noqa: E402, F401
