"""The admin start page's content for the signed-in user (teaching/start/reads.py)."""

from __future__ import annotations

from django import template

from teaching.start.reads import StartPage, start_page

register = template.Library()


@register.simple_tag(takes_context=True)
def instructor_start(context) -> StartPage:
    return start_page(context["request"].user)
