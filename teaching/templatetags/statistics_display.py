"""How the statistics pages show a figure (to three decimals, or, where it is undefined, a dash
with the reason for the eye, a tooltip, and for screen readers, visually hidden words) and the
learners behind a count."""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from teaching.numbers import percent
from teaching.statistics.figures import SHARES

register = template.Library()

UNDEFINED = (
    '<span class="undefined" title="{reason}"><span aria-hidden="true">—</span>'
    '<span class="visually-hidden">undefined: {reason}</span></span>'
)


@register.simple_tag
def figure(
    value: float | None, reason: str = "", digits: int = 3, share: bool = False
) -> SafeString:
    """A statistic: 0.600, −0.049, or a share as a percentage (teaching/numbers.py): 60 %;
    "—" with its reason when it is undefined (None)."""
    if value is None:
        return format_html(UNDEFINED, reason=reason or "not defined for these attempts")
    if share:
        return format_html("{}", percent(value))
    text = f"{value:.{digits}f}"
    if float(text) == 0:
        text = text.lstrip("-")  # a figure rounded to zero has no sign
    return format_html("{}", text.replace("-", "−"))


@register.simple_tag
def item_figure(statistics, name: str) -> SafeString:
    """An item's figure by name, with the reason ItemStatistics.undefined gives when undefined."""
    return figure(
        getattr(statistics, name), statistics.undefined.get(name, ""), share=name in SHARES
    )


@register.simple_tag
def learner_links(links) -> SafeString:
    """The learners behind a count (statistics_views.LearnerLink) as list items linking to their
    attempts: built here, not in a template loop, since an item of a quiz of 3,000 learners
    lists tens of thousands of them, which a loop renders in seconds."""
    return format_html_join(
        "",
        '<li><a href="{}">{}</a> <span class="meta">{}attempt {}</span></li>',
        (
            (
                link.url,
                link.learner.name,
                f"{link.learner.username}, " if link.learner.name != link.learner.username else "",
                link.number,
            )
            for link in links
        ),
    )
