"""Rendered markup shared by every worker through Django's cache (courses/render_cache.py)."""

from __future__ import annotations

import pytest
import redis
from django.core.cache import cache

from courses import markup, render_cache
from courses.markup import MarkupError, render_markup, render_title


def test_a_text_rendered_by_one_worker_is_read_by_another(markup_conversions, markup_memo):
    first = render_markup("Softmax of $QK^T$")
    markup_memo.clear()  # another worker: its own memo is empty
    assert render_markup("Softmax of $QK^T$") == first
    assert len(markup_conversions) == 1


def test_the_key_is_what_the_html_was_rendered_from(monkeypatch):
    key = render_cache.shared_key(version=2, kind=True, text="$d_k$")
    assert key.startswith("markup:2:True:")
    assert render_cache.shared_key(version=3, kind=True, text="$d_k$") != key
    assert render_cache.shared_key(version=2, kind=False, text="$d_k$") != key
    assert render_cache.shared_key(version=2, kind="title", text="$d_k$") != key
    assert render_cache.shared_key(version=2, kind=True, text="$d_v$") != key
    assert len(render_cache.shared_key(version=2, kind=True, text="x" * 100_000)) < 100


def test_a_new_renderer_version_renders_again(monkeypatch, markup_conversions, markup_memo):
    render_markup("$\\sqrt{d_k}$")
    monkeypatch.setattr(markup, "RENDERER_VERSION", markup.RENDERER_VERSION + 1)
    render_markup("$\\sqrt{d_k}$")
    assert len(markup_conversions) == 2


def test_inline_block_and_title_renderings_are_kept_apart(markup_memo):
    block = render_markup("$x$ is small")
    markup_memo.clear()
    assert render_markup("$x$ is small", inline=True) != block
    markup_memo.clear()
    assert render_title("$x$ is small") != block


def test_text_that_cannot_render_is_shared_as_its_message(markup_conversions, markup_memo):
    with pytest.raises(MarkupError) as first:
        render_markup("$\\frac{1}$")
    markup_memo.clear()
    with pytest.raises(MarkupError) as again:
        render_markup("$\\frac{1}$")
    assert str(again.value) == str(first.value)
    assert len(markup_conversions) == 1


def test_while_the_cache_is_down_text_is_converted_as_without_it(
    monkeypatch, markup_conversions, markup_memo, caplog
):
    def down(*args, **kwargs):
        raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(cache, "get", down)
    monkeypatch.setattr(cache, "set", down)
    assert "<mi>d</mi>" in render_markup("$d$")
    assert len(markup_conversions) == 1
    assert "not read from the shared cache" in caplog.text


def test_a_value_that_cannot_be_kept_still_renders(monkeypatch, markup_conversions, markup_memo):
    def full(*args, **kwargs):
        raise redis.exceptions.ConnectionError("Connection reset")

    monkeypatch.setattr(cache, "set", full)
    assert "<mi>e</mi>" in render_markup("$e$")
    markup_memo.clear()
    render_markup("$e$")
    assert len(markup_conversions) == 2
