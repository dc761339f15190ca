"""Who teaches which course: a course role gives its holder the course's instructor pages
(teaching/access.py decides, once)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from courses.models import Course


class CourseRole(models.Model):
    """A user's role in one course: instructor or teaching assistant."""

    class Role(models.TextChoices):
        INSTRUCTOR = "instructor", "Instructor"
        TEACHING_ASSISTANT = "teaching_assistant", "Teaching assistant"

    class Source(models.TextChoices):
        ADMIN = "admin", "Set in the admin"
        LMS = "lms", "Given by an LMS launch"

    # No index of its own: the unique (course, user) leads with it.
    course = models.ForeignKey(
        Course, on_delete=models.CASCADE, related_name="teaching_roles", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="course_roles"
    )
    role = models.CharField(max_length=32, choices=Role.choices)
    # A launch never changes a role an administrator set (teaching.services).
    source = models.CharField(
        max_length=16,
        choices=Source.choices,
        default=Source.ADMIN,
        help_text="An LMS launch updates only the roles launches gave.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["course", "role", "user"]
        constraints = [
            models.UniqueConstraint(fields=["course", "user"], name="courserole_one_per_user"),
            models.CheckConstraint(
                condition=Q(role__in=["instructor", "teaching_assistant"]),
                name="courserole_known_role",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.get_role_display()} of {self.course}"
