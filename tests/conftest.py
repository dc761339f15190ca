from pathlib import Path

import pytest
from django.core.cache import cache

from courses.bank.importer import BANKS_DIR, bank_import
from integrations.services import api_key_forget_recent

SHIPPED_BANK = BANKS_DIR / "scaled-dot-product-attention.yaml"


@pytest.fixture(autouse=True)
def _no_recent_api_keys():
    """API keys this process copied in one test must not answer for the next one's database."""
    api_key_forget_recent()
    yield
    api_key_forget_recent()


@pytest.fixture(autouse=True)
def _empty_cache():
    """Rate-limit counters (sign-in, sign-up, LTI login) never carry from one test to the next."""
    cache.clear()
    yield
    cache.clear()


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
