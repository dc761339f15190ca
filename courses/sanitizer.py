"""The allowlist of what the renderer (courses/markup.py) legitimately produces, applied by nh3,
a maintained HTML5 sanitizer: every rendering ends in `sanitize_html`, so no script, no link to
a refused scheme and no style can reach a learner's page, whatever an instructor typed."""

from __future__ import annotations

import re

import nh3

from .typesetting import MATHML_NAMESPACE

# Links may go to the web or to a mail address, or stay on softgrade (relative, #anchor).
URL_SCHEMES = frozenset({"http", "https", "mailto"})
# Links that leave softgrade: no endorsement by the course, and no exam page address (it names
# the attempt) sent to the other site.
EXTERNAL_LINK_REL = "nofollow noopener noreferrer"

# What Python-Markdown makes of text with raw HTML escaped, with the sane_lists and tables
# extensions: paragraphs, headings, emphasis, code, quotes, lists, rules, line breaks, links,
# tables. Images (`![alt](src)`) are left out on purpose: the bank format has none, and an image
# from another site would tell that site who reads the lesson, and when. Their alt text is shown.
MARKDOWN_TAGS = frozenset(
    {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "code", "pre",
     "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td"}
)  # fmt: skip
MARKDOWN_ATTRIBUTES = {"a": frozenset({"href", "title"}), "ol": frozenset({"start"})}

# Every element latex2mathml (3.x) emits: found by rendering the shipped banks and by reading its
# converter and command table (tests/courses/test_markup.py renders the shipped bank through
# this list and checks nothing is lost). No <semantics>/<annotation>, no <maction>: nothing here
# can hold a script or a link.
MATHML_TAGS = frozenset(
    {"math", "mrow", "mi", "mn", "mo", "mtext", "mspace", "mfrac", "msqrt", "mroot", "msub",
     "msup", "msubsup", "munder", "mover", "munderover", "mstyle", "mpadded", "mphantom",
     "menclose", "mtable", "mtr", "mtd"}
)  # fmt: skip
# The presentation attributes latex2mathml sets, allowed on any MathML element. Not `href`
# (\href: links go in Markdown, where the URL scheme is checked), not `style` or `class`
# (\style, \class), not `border-color` (\fcolorbox): none of them is needed to show a formula.
MATHML_ATTRIBUTES = frozenset(
    {
        # any element: \mathbf, \Large, \color, \colorbox, \displaystyle, \scriptstyle
        "mathvariant", "mathsize", "mathcolor", "mathbackground", "displaystyle", "scriptlevel",
        # operators: \left( \right), \sum, \operatorname, \overbrace, spacing around \mathrel
        "stretchy", "fence", "form", "separator", "lspace", "rspace", "largeop", "movablelimits",
        "minsize", "maxsize", "accent",
        # \binom, \tfrac; \quad, \hspace, \phantom, \\; \boxed, \cancel; matrices, aligned
        "linethickness", "width", "height", "depth", "voffset", "linebreak", "notation",
        "columnalign", "columnlines", "columnspacing", "rowlines", "rowspacing",
    }
)  # fmt: skip
# Attribute values that must be one of a few: anything else is dropped.
_FIXED_VALUES = {
    "math": {"xmlns": {MATHML_NAMESPACE}, "display": {"block", "inline"}},
    "a": {"rel": {EXTERNAL_LINK_REL}},
    "th": {"align": {"left", "center", "right"}},
    "td": {"align": {"left", "center", "right"}},
}
# MathML attribute values are lengths, colours, names and numbers: `-.325em`, `#ff0000`, `left
# right`. Nothing else may pass, so no value can smuggle CSS (`url(`, `;`) into a presentation hint.
MATHML_VALUE = re.compile(r"[\w#.+\-% ]*")

ALLOWED_TAGS = MARKDOWN_TAGS | MATHML_TAGS
_ALLOWED_ATTRIBUTES = {
    **{tag: set(MATHML_ATTRIBUTES) for tag in MATHML_TAGS},
    **{tag: set(names) for tag, names in MARKDOWN_ATTRIBUTES.items()},
}


def _mathml_value_filter(tag: str, attribute: str, value: str) -> str | None:
    if tag in MATHML_TAGS and tag != "math" and not MATHML_VALUE.fullmatch(value):
        return None
    return value


def sanitize_html(fragment: str) -> str:
    """Keep only allowlisted elements, attributes and URL schemes: `sanitize_html("<b>x</b>")`."""
    return nh3.clean(
        fragment,
        tags=set(ALLOWED_TAGS),
        attributes=_ALLOWED_ATTRIBUTES,
        tag_attribute_values={
            t: {a: set(v) for a, v in d.items()} for t, d in _FIXED_VALUES.items()
        },
        attribute_filter=_mathml_value_filter,
        allowed_classes={"a": {"term-link"}},
        url_schemes=set(URL_SCHEMES),
        link_rel=None,  # set by _LinksAndImages on links that leave softgrade, and only there
        strip_comments=True,
    )
