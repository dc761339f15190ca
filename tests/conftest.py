from pathlib import Path

import pytest
from django.core.cache import cache

from courses import markup
from courses.bank.importer import BANKS_DIR, bank_import
from courses.memo import BoundedMemo

SHIPPED_BANK = BANKS_DIR / "scaled-dot-product-attention.yaml"


@pytest.fixture(autouse=True)
def _empty_cache():
    """Rate-limit counters (sign-in, sign-up, LTI login) never carry from one test to the next."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def markup_memo(monkeypatch) -> BoundedMemo:
    """A fresh memo of rendered markup (1 MiB) in place of the process's: starts empty."""
    fresh = BoundedMemo(max_bytes=2**20)
    monkeypatch.setattr(markup, "render_memo", lambda: fresh)
    return fresh


class MarkupConversions:
    """The texts actually converted to HTML (the memo's misses), in order, with `inline`."""

    def __init__(self) -> None:
        self.texts: list[tuple[str, bool]] = []

    def __len__(self) -> int:
        return len(self.texts)


@pytest.fixture
def markup_conversions(monkeypatch, markup_memo) -> MarkupConversions:
    """Counts conversions behind a fresh memo: a page that renders once converts nothing when
    it is shown again."""
    seen = MarkupConversions()
    convert = markup.convert_markup

    def counting(text: str, *, inline: bool = False):
        seen.texts.append((text, inline))
        return convert(text, inline=inline)

    monkeypatch.setattr(markup, "convert_markup", counting)
    return seen


class StoppedClock:
    """The rate limits' clock, stopped at the start of a window of every period (a whole day
    since the epoch); `advance` moves it on."""

    def __init__(self):
        self.now = 20_000 * 86_400.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def limit_clock(monkeypatch) -> StoppedClock:
    from security import limits

    clock = StoppedClock()
    monkeypatch.setattr(limits, "clock", clock)
    return clock


@pytest.fixture
def shipped_bank(db):
    """The lesson bank softgrade ships, imported into the test database."""
    bank_import(paths=[SHIPPED_BANK])
    return SHIPPED_BANK


@pytest.fixture
def bank_copy(tmp_path) -> Path:
    """A writable copy of the shipped bank, for tests that break it on purpose."""
    copy = tmp_path / SHIPPED_BANK.name
    copy.write_text(SHIPPED_BANK.read_text(encoding="utf-8"), encoding="utf-8")
    return copy
