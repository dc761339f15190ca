"""Question HTML to the lesson's Markdown and back (no database)."""

import pytest

from courses.markup import check_markup
from courses.moodle_xml.files import FileRef
from courses.moodle_xml.html_text import html_to_markdown, markdown_to_html


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("<p>One</p><p>Two</p>", "One\n\nTwo"),
        ("<p>a<br>b</p>", "a  \nb"),
        ("<p><b>bold</b>, <i>italic</i>, <code>x</code></p>", "**bold**, *italic*, `x`"),
        ("<ul><li>one</li><li>two</li></ul>", "- one\n- two"),
        ("<ol><li>one</li><li>two</li></ol>", "1. one\n2. two"),
        (
            '<p>See <a href="https://example.org/a">this</a>.</p>',
            "See [this](https://example.org/a).",
        ),
        ("<h3>Title</h3><p>text</p>", "### Title\n\ntext"),
        ("<p>\\(x_1 + x_2\\)</p>", "$x_1 + x_2$"),
        ("<p>before \\[\\sum_i x_i\\] after</p>", "before\n\n$$\\sum_i x_i$$\n\nafter"),
        ("<p>a &lt; b &amp; c</p>", "a < b & c"),
        ("<p>2 * 3 and [x] and _lead</p>", "2 \\* 3 and \\[x\\] and \\_lead"),
        ("<p>d_k stays</p>", "d_k stays"),
        ("<p>keep</p><script>alert(1)</script>", "keep"),
    ],
)
def test_html_becomes_markdown(source, expected):
    assert html_to_markdown(source, "html").markdown == expected


def test_formatting_without_a_counterpart_is_named_and_its_text_kept():
    converted = html_to_markdown(
        "<p><u>under</u> x<sup>2</sup></p><table><tr><td>c</td></tr></table>", "html"
    )
    assert converted.dropped == ["<u>", "<sup>", "<table>", "<tr>"]
    assert "under" in converted.markdown
    assert "x2" in converted.markdown
    assert "c" in converted.markdown


def test_images_are_named():
    converted = html_to_markdown('<p><img src="@@PLUGINFILE@@/a%20b.png" alt="a"></p>', "html")
    assert converted.files == [FileRef("a b.png", "an image")]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('<audio controls><source src="@@PLUGINFILE@@/clip.mp3"></audio>', "an audio file"),
        # No extension: the element says what it is.
        ('<video><source src="https://example.org/stream"></video>', "a video"),
        ('<audio src="@@PLUGINFILE@@/take"></audio>', "an audio file"),
        ('<a href="@@PLUGINFILE@@/notes.pdf">the notes</a>', "a PDF"),
        ('<object data="@@PLUGINFILE@@/applet.swf"></object>', "a file"),
        ('<embed src="@@PLUGINFILE@@/slides.pdf">', "a PDF"),
        ('<img src="data:image/png;base64,iVBORw0KGgo=">', "an image"),
        # Not a valid address (an unclosed IPv6 bracket): still a file, named by its extension.
        ('<img src="http://[h/x.pdf">', "a PDF"),
    ],
)
def test_every_shown_or_linked_file_is_named_as_what_it_is(source, expected):
    [found] = html_to_markdown(source, "html").files
    assert found.kind == expected


def test_a_link_to_another_page_is_a_link_not_a_file():
    converted = html_to_markdown('<a href="https://example.org/notes.pdf">notes</a>', "html")
    assert converted.files == []
    assert converted.markdown == "[notes](https://example.org/notes.pdf)"


def test_plain_text_and_markdown_are_taken_as_written():
    assert html_to_markdown("  <b>not html</b>  ", "plain_text").markdown == "<b>not html</b>"
    assert html_to_markdown("*already* $x$", "markdown").markdown == "*already* $x$"


def test_converted_math_renders():
    converted = html_to_markdown("<p>\\(\\sqrt{d_k}\\) and $$\\frac{1}{2}$$</p>", "html")
    assert check_markup(converted.markdown) == []


def test_markdown_becomes_html_with_tex_for_mathjax():
    html = markdown_to_html("Is *this* $a < b$?\n\n$$\\frac{1}{2}$$\n\nSee [[variance|it]].")
    assert html == (
        "<p>Is <em>this</em> \\(a &lt; b\\)?</p>\n<p>\\[\\frac{1}{2}\\]</p>\n<p>See it.</p>"
    )


def test_raw_html_in_markdown_is_written_as_text():
    assert markdown_to_html("a <script>b</script>") == "<p>a &lt;script&gt;b&lt;/script&gt;</p>"


def test_moodle_auto_format_keeps_its_paragraphs_and_line_breaks():
    converted = html_to_markdown(
        "First line\nsecond <b>line</b>\n\nNew paragraph", "moodle_auto_format"
    )
    assert converted.markdown == "First line  \nsecond **line**\n\nNew paragraph"


def test_a_code_span_is_escaped_once():
    html = markdown_to_html("Check `x > 0 & y < 1`, then a <b>.")
    assert "<code>x &gt; 0 &amp; y &lt; 1</code>" in html
    assert "&amp;gt;" not in html
    assert "a &lt;b&gt;." in html
