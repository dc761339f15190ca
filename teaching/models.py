"""Who teaches which course: a course role gives its holder the course's instructor pages
(teaching/access.py decides, once); and what instructors noted about a problem's answers."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from courses.models import Course, Problem


class CourseRole(models.Model):
    """A user's role in one course: instructor or teaching assistant."""

    class Role(models.TextChoices):
        INSTRUCTOR = "instructor", _("Instructor")
        TEACHING_ASSISTANT = "teaching_assistant", _("Teaching assistant")

    class Source(models.TextChoices):
        ADMIN = "admin", _("Set in the admin")
        LMS = "lms", _("Given by an LMS launch")

    # No index of its own: the unique (course, user) leads with it.
    course = models.ForeignKey(
        Course,
        on_delete=models.CASCADE,
        related_name="teaching_roles",
        db_index=False,
        verbose_name=_("course"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="course_roles",
        verbose_name=_("user"),
    )
    role = models.CharField(max_length=32, choices=Role.choices, verbose_name=_("role"))
    # A launch never changes a role an administrator set (teaching.services).
    source = models.CharField(
        max_length=16,
        choices=Source.choices,
        default=Source.ADMIN,
        help_text=_("An LMS launch updates only the roles launches gave."),
        verbose_name=_("source"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("course role")
        verbose_name_plural = _("course roles")
        ordering = ["course", "role", "user"]
        constraints = [
            models.UniqueConstraint(fields=["course", "user"], name="courserole_one_per_user"),
            models.CheckConstraint(
                condition=Q(role__in=["instructor", "teaching_assistant"]),
                name="courserole_known_role",
            ),
        ]

    def __str__(self) -> str:
        return _("%(user)s · %(role)s of %(course)s") % {
            "user": self.user,
            "role": self.get_role_display(),
            "course": self.course,
        }


class MisconceptionNote(models.Model):
    """An instructor's note on a group of a problem's unexplained wrong answers (the relation
    misconception discovery found, e.g. "times-sqrt-d-k", "answer * sqrt(d_k)"): for a problem of
    a built-in family, whose mistakes live in code, this is how a new misconception is recorded."""

    problem = models.ForeignKey(
        Problem,
        on_delete=models.CASCADE,
        related_name="misconception_notes",
        verbose_name=_("problem"),
    )
    relation = models.CharField(
        max_length=120,
        help_text=_("The relation's code, as discovered."),
        verbose_name=_("relation"),
    )
    formula = models.CharField(
        max_length=500,
        help_text=_("Over `answer` and the givens' names."),
        verbose_name=_("formula"),
    )
    text = models.TextField(verbose_name=_("text"))
    # Who wrote it: the account may go one day, the name stays.
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("author"),
    )
    author_name = models.CharField(max_length=150, verbose_name=_("author name"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("misconception note")
        verbose_name_plural = _("misconception notes")
        ordering = ["problem", "-created_at", "-id"]

    def __str__(self) -> str:
        return _("%(problem)s · %(relation)s by %(author)s") % {
            "problem": self.problem.slug,
            "relation": self.relation,
            "author": self.author_name,
        }
