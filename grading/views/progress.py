"""The learner's overview: home (the catalogue with progress) and history (attempts, streaks).

The home page lives here, not in courses, because it shows the learner's progress and the
courses app never imports grading.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from courses import selectors as course_selectors
from grading import selectors
from grading.models import PracticeStreak
from grading.services.overdue import overdue_attempts_close


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    courses = list(course_selectors.course_list())
    progress = {}
    if request.user.is_authenticated:
        overdue_attempts_close(user=request.user)
        lessons = [lesson for course in courses for lesson in course.lessons.all()]
        progress = selectors.lesson_progress(user=request.user, lessons=lessons, now=timezone.now())
    catalogue = [
        (course, [(lesson, progress.get(lesson.pk)) for lesson in course.lessons.all()])
        for course in courses
    ]
    return render(request, "grading/home.html", {"catalogue": catalogue})


@require_GET
@login_required
def history(request: HttpRequest) -> HttpResponse:
    overdue_attempts_close(user=request.user)
    attempts = selectors.learner_attempts(user=request.user)
    context = {
        "attempt_rows": selectors.attempts_shown(attempts=attempts, now=timezone.now()),
        "streaks": selectors.learner_streaks(user=request.user),
        "mastery": PracticeStreak.MASTERY,
    }
    return render(request, "grading/history.html", context)
