"""Where an LMS launch of a course's instructor or teaching assistant lands: the instructor page
of the link's content (a quiz's results; for a practice set, its course's page), not the page a
learner sees, which those pages link to.

lti never imports teaching: the launch asks the function SOFTGRADE_LAUNCH_TEACHING_LANDING names,
after it gave the launch's course role, and sends the browser where it says. Who may see those
pages is teaching/access.py's decision, asked here too, so a launch never lands on a 404.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.urls import reverse

from courses.models import Lesson, Quiz
from teaching import access


def teaching_landing_url(
    *, user: AbstractBaseUser, quiz: Quiz | None, lesson: Lesson | None
) -> str | None:
    """The instructor page of a link's quiz or practice set's lesson, when the user may see it;
    None otherwise (the launch then lands where it would without this). One query at most."""
    if quiz is not None:
        if access.teaches_quiz(user=user, quiz=quiz):
            return reverse("teaching:quiz-results", args=[quiz.slug])
        return None
    if lesson is not None:
        course_slug = (
            access.courses_taught(user)
            .filter(pk=lesson.course_id)
            .values_list("slug", flat=True)
            .first()
        )
        if course_slug is not None:
            # The lesson's own section of the course page (templates/teaching/course_detail.html).
            return reverse("teaching:course", args=[course_slug]) + f"#lesson-{lesson.pk}"
    return None
