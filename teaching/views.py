"""The instructor pages under /teach/ that lead to the rest: the courses a user teaches and a
course's lessons and quizzes.

Each view finds its course through teaching.access (a 404 outside the user's courses), reads
through teaching's selectors, and renders. Nothing here changes a record but attempts whose
time ran out, closed first (grading/services/overdue.py) so none shows as open.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from grading.models import Attempt
from grading.services.overdue import overdue_attempts_close
from teaching import access, selectors


@never_cache
@require_GET
@login_required
def course_list(request: HttpRequest) -> HttpResponse:
    access.teaching_or_404(request.user)
    courses = selectors.courses_with_roles(user=request.user)
    return render(request, "teaching/course_list.html", {"courses": courses})


@never_cache
@require_GET
@login_required
def course_detail(request: HttpRequest, slug: str) -> HttpResponse:
    course = access.course_for_staff_or_404(user=request.user, slug=slug)
    overdue_attempts_close(among=Attempt.objects.filter(quiz__lesson__course=course))
    context = {"course": course, "lessons": selectors.course_lessons(course=course)}
    return render(request, "teaching/course_detail.html", context)
