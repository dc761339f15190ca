"""How the statistics pages show a figure (to three decimals, or, where it is undefined, a dash
with the reason for the eye, a tooltip, and for screen readers, visually hidden words) and the
learners behind a count."""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_noop

from teaching.numbers import localized, percent
from teaching.statistics.figures import SHARES

register = template.Library()

UNDEFINED = (
    '<span class="undefined" title="{reason}"><span aria-hidden="true">—</span>'
    '<span class="visually-hidden">{words}</span></span>'
)

# Why a figure is undefined: teaching/statistics/figures.py (which imports no Django) and
# teaching/statistics/data.py keep these English texts; marked here for the catalog, they are
# translated when a page shows them.
REASONS = (
    gettext_noop("no attempts"),
    gettext_noop("fewer than two attempts"),
    gettext_noop("fewer than three attempts"),
    gettext_noop("fewer than four attempts"),
    gettext_noop("every attempt has the same total, so the totals have no variance"),
    gettext_noop("a quiz of one item has no internal consistency"),
    gettext_noop(
        "the coefficient of internal consistency exceeds 1 (totals differ from item marks)"
    ),
    gettext_noop("every attempt has the same score on this item, so it has no variance"),
    gettext_noop("every attempt has the same score on the rest of the quiz, so it has no variance"),
    gettext_noop("the item's marks vary against the total (negative covariance)"),
    gettext_noop("no item's marks vary with the total"),
    gettext_noop("no random guess score for this kind of item"),
    gettext_noop("the quiz has no items yet"),
)


@register.simple_tag
def figure(
    value: float | None, reason: str = "", digits: int = 3, share: bool = False
) -> SafeString:
    """A statistic: 0.600, −0.049, or a share as a percentage (teaching/numbers.py): 60 %;
    "—" with its reason when it is undefined (None)."""
    if value is None:
        reason = gettext(reason) if reason else gettext("not defined for these attempts")
        words = gettext("undefined: %(reason)s") % {"reason": reason}
        return format_html(UNDEFINED, reason=reason, words=words)
    if share:
        return format_html("{}", percent(value))
    text = f"{value:.{digits}f}"
    if float(text) == 0:
        text = text.lstrip("-")  # a figure rounded to zero has no sign
    return format_html("{}", localized(text).replace("-", "−"))


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
    attempt = gettext("attempt %(number)s")  # looked up once, not once per learner
    return format_html_join(
        "",
        '<li><a href="{}">{}</a> <span class="meta">{}{}</span></li>',
        (
            (
                link.url,
                link.learner.name,
                f"{link.learner.username}, " if link.learner.name != link.learner.username else "",
                attempt % {"number": link.number},
            )
            for link in links
        ),
    )
