"""Titles, headings and short labels with $math$: MathML on the page, plain text in <title>.

{% load math_text %}
<title>{{ lesson.title|plain_math }}</title>   →  why we divide by √dₖ
<h1>{{ lesson.title|inline_math }}</h1>         →  why we divide by <math>…</math>
"""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from courses import plain_math as plain
from courses.markup import render_title

register = template.Library()


@register.filter
def inline_math(text: str | None) -> SafeString:
    """A title or short text: its $math$ as sanitized MathML, the rest escaped (no Markdown)."""
    return render_title(text or "")


@register.filter
def plain_math(text: str | None) -> str:
    """A title for where MathML cannot go (<title>): its $math$ as plain Unicode text."""
    return plain.plain_math(text or "")
