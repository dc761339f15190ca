from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from . import selectors
from .lesson_parts import split_at_explorer_link
from .markup import render_markup_or_plain
from .models import Lesson


@require_GET
def lesson_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The lesson, its glossary, links to practice and quizzes, and the saturation explorer.

    Anyone may read it; the explorer runs in the browser and needs no account.
    """
    try:
        lesson = selectors.lesson_detail(slug=slug)
    except Lesson.DoesNotExist as exc:
        raise Http404("No such lesson.") from exc
    body_before_explorer, body_after_explorer = split_at_explorer_link(
        render_markup_or_plain(lesson.body)
    )
    context = {
        "lesson": lesson,
        "body_before_explorer": body_before_explorer,
        "body_after_explorer": body_after_explorer,
        "key_terms": [
            (term, render_markup_or_plain(term.definition)) for term in lesson.key_terms.all()
        ],
        "problems": list(lesson.problems.all()),
        "quizzes": list(lesson.quizzes.all()),
    }
    return render(request, "courses/lesson_detail.html", context)
