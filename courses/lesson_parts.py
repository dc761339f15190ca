"""Where a lesson page puts its explorer: right after the paragraph that sends the learner to it.

The body is the sanitized HTML of courses/markup.py; it is cut only at the end of that
paragraph, so both parts stay the same markup and the explorer reads as the next block.
"""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe

EXPLORER_LINK = 'href="#explorer"'
PARAGRAPH_END = "</p>"


def split_at_explorer_link(body: SafeString) -> tuple[SafeString, SafeString]:
    """The body before and after the end of the first paragraph linking to #explorer.

    Without such a paragraph the whole body comes first and the explorer follows it:
    >>> split_at_explorer_link(mark_safe("<p>a</p>"))
    ('<p>a</p>', '')
    """
    link = body.find(EXPLORER_LINK)
    end = body.find(PARAGRAPH_END, link) if link >= 0 else -1
    if end < 0:
        return body, mark_safe("")
    cut = end + len(PARAGRAPH_END)
    # Both parts come from one sanitized text, cut between two of its elements.
    return mark_safe(body[:cut]), mark_safe(body[cut:])
