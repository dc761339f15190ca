"""The number convention of the instructor pages (teaching/numbers.py) as template filters:
{{ value|points }}, {{ value|points_of:maximum }}, {{ fraction|percent }},
{{ "Total"|points_header:maximum }}."""

from __future__ import annotations

from django import template

from teaching import numbers

register = template.Library()

register.filter("points", numbers.points_text)
register.filter("points_of", numbers.points_of)
register.filter("percent", numbers.percent)
register.filter("points_header", numbers.points_header)
