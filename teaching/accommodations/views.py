"""The accommodations page under /teach/: a course's learners with their own rules at its
quizzes (extra minutes, extra attempts, a due date of their own), to add, change and remove.

Every role of the course sees the list; only those who may set accommodations (instructors and
superusers, teaching.access) see the forms, and anything else they send is a 403 that changes
nothing. Outside the user's courses the course or accommodation is a 404. The changes go
through the audited service (grading/services/accommodations.py); every accepted POST answers
with a redirect and a message, a refused one with the form again and the reasons beside the
fields.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courses.models import Course
from courses.plain_math import plain_math
from grading.accommodations import answers_release_times
from grading.models import QuizAccommodation
from grading.services.accommodations import (
    AccommodationNotAllowed,
    AccommodationRefused,
    accommodation_remove,
    accommodation_set,
)
from teaching import access
from teaching.accommodations.forms import AccommodationForm
from teaching.accommodations.learners import learners_matching

ONLY_INSTRUCTORS = "Only the course's instructors may set a learner's accommodations."


def _allowed_or_403(request: HttpRequest, course: Course) -> None:
    if not access.may_set_accommodations(user=request.user, course=course):
        raise PermissionDenied(ONLY_INSTRUCTORS)


def _page(course: Course) -> str:
    return reverse("teaching:accommodations", args=[course.slug])


def _saved(request: HttpRequest, form: AccommodationForm) -> bool:
    """Set the form's accommodation; False (with the reasons on the form) when refused."""
    data = form.cleaned_data
    try:
        accommodation_set(
            quiz=data["quiz"], learner=data["learner"], terms=form.terms(), by=request.user
        )
    except AccommodationNotAllowed as refusal:
        raise PermissionDenied(refusal.message) from None
    except AccommodationRefused as refusal:
        for field, message in refusal.problems.items():
            form.add_error(field, message)
        return False
    messages.success(
        request,
        _(
            "Accommodation saved for %(learner)s at “%(quiz)s”. It applies at once, to an "
            "attempt in progress too."
        )
        % {"learner": data["learner"].get_username(), "quiz": plain_math(data["quiz"].title)},
    )
    return True


def _listing(course: Course) -> list[dict]:
    """The course's accommodations, each with when its quiz releases answers to everyone if
    that is after the quiz's close (an own due date moved it): two queries at most."""
    rows = list(
        QuizAccommodation.objects.filter(quiz__lesson__course=course)
        .select_related("quiz", "learner")
        .order_by("quiz__lesson__order", "quiz__title", "learner__username")
    )
    release = answers_release_times({row.quiz_id: row.quiz for row in rows}.values())
    listing = []
    for row in rows:
        at = release[row.quiz_id]
        moved = at is not None and row.closes_at is not None and at > row.quiz.closes_at
        listing.append({"row": row, "release_at": at if moved else None})
    return listing


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def course_accommodations(request: HttpRequest, slug: str) -> HttpResponse:
    course = access.course_for_staff_or_404(user=request.user, slug=slug)
    may_set = access.may_set_accommodations(user=request.user, course=course)
    # Without the script: a search of the course's learners, each found one a link that puts
    # them in the form (?learner=username).
    find = request.GET.get("find", "").strip()[:150]
    picked = request.GET.get("learner", "").strip()[:150]
    form = AccommodationForm(course=course, initial={"learner": picked}) if may_set else None
    status = 200
    if request.method == "POST":
        _allowed_or_403(request, course)
        form = AccommodationForm(request.POST, course=course)
        if form.is_valid() and _saved(request, form):
            return HttpResponseRedirect(_page(course))
        status = 400
    context = {
        "course": course,
        "rows": _listing(course),
        "form": form,
        "may_set": may_set,
        "find": find,
        "found": learners_matching(course=course, text=find) if may_set and find else [],
    }
    return render(request, "teaching/accommodations.html", context, status=status)


@never_cache
@require_GET
@login_required
def course_learner_search(request: HttpRequest, slug: str) -> JsonResponse:
    """The course's learners matching ?q= (name or username, any case), for the form's
    suggestions: for those who may set accommodations in the course only (else 403; outside the
    user's courses, 404)."""
    course = access.course_for_staff_or_404(user=request.user, slug=slug)
    _allowed_or_403(request, course)
    found = learners_matching(course=course, text=request.GET.get("q", "")[:150])
    return JsonResponse({"learners": [{"username": o.username, "label": o.label} for o in found]})


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def accommodation_edit(request: HttpRequest, pk: int) -> HttpResponse:
    accommodation = access.accommodation_for_staff_or_404(user=request.user, pk=pk)
    course = accommodation.quiz.lesson.course
    _allowed_or_403(request, course)
    status = 200
    if request.method == "POST":
        form = AccommodationForm(request.POST, course=course, editing=accommodation)
        if form.is_valid() and _saved(request, form):
            return HttpResponseRedirect(_page(course))
        status = 400
    else:
        form = AccommodationForm(course=course, editing=accommodation)
    context = {"course": course, "accommodation": accommodation, "form": form}
    return render(request, "teaching/accommodation_edit.html", context, status=status)


@require_POST
@login_required
def accommodation_delete(request: HttpRequest, pk: int) -> HttpResponse:
    accommodation = access.accommodation_for_staff_or_404(user=request.user, pk=pk)
    course = accommodation.quiz.lesson.course
    _allowed_or_403(request, course)
    learner, quiz = accommodation.learner.get_username(), plain_math(accommodation.quiz.title)
    try:
        accommodation_remove(accommodation=accommodation, by=request.user)
    except AccommodationNotAllowed as refusal:
        raise PermissionDenied(refusal.message) from None
    messages.success(
        request,
        _("Accommodation removed: %(learner)s is held to the rules of “%(quiz)s” again.")
        % {"learner": learner, "quiz": quiz},
    )
    return HttpResponseRedirect(_page(course))
