from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from . import selectors
from .markup import render_markup
from .models import Lesson


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "courses/home.html", {"courses": selectors.course_list()})


def lesson_detail(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        lesson = selectors.lesson_detail(slug=slug)
    except Lesson.DoesNotExist as exc:
        raise Http404("No such lesson.") from exc
    context = {
        "lesson": lesson,
        "body": render_markup(lesson.body),
        "title_html": render_markup(lesson.title, inline=True),
        "key_terms": [(term, render_markup(term.definition)) for term in lesson.key_terms.all()],
    }
    return render(request, "courses/lesson_detail.html", context)
