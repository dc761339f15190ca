from django.utils.safestring import SafeString, mark_safe

from courses.lesson_parts import split_at_explorer_link


def test_the_body_is_cut_after_the_paragraph_that_links_to_the_explorer():
    body = mark_safe(
        '<p>One.</p>\n<p>Try <a href="#explorer">the explorer</a> below.</p>\n<h2>Next</h2>'
    )
    before, after = split_at_explorer_link(body)
    assert before == '<p>One.</p>\n<p>Try <a href="#explorer">the explorer</a> below.</p>'
    assert after == "\n<h2>Next</h2>"
    assert isinstance(before, SafeString)
    assert isinstance(after, SafeString)


def test_without_a_link_to_the_explorer_the_whole_body_comes_first():
    body = mark_safe('<p>See <a href="#term-x">x</a>.</p>')
    assert split_at_explorer_link(body) == (body, "")
