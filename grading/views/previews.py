"""An instructor's preview of a quiz: start one (or a fresh one) and go to the learner's page.

The preview then runs on the learner's own pages (grading.views.attempts), which find it as any
attempt of its user, and show the "Preview — not counted" banner. Someone who may not preview
the quiz gets the same 404 as for a quiz that does not exist, so the action tells a learner
nothing about the quizzes of courses they do not teach.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from grading import selectors
from grading.services.previews import may_preview, preview_start
from grading.views.refusals import found


@require_POST
@login_required
def quiz_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """POST: resume the user's preview in progress, or start one; `fresh=1` starts a new one."""
    quiz = found(selectors.quiz_to_preview, missing=gettext("No such quiz."), slug=slug)
    if not may_preview(user=request.user, quiz=quiz):
        raise Http404(gettext("No such quiz."))
    attempt = preview_start(user=request.user, quiz=quiz, fresh=request.POST.get("fresh") == "1")
    return redirect("attempt-take", pk=attempt.pk)
