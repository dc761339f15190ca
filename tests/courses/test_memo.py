"""The bounded memo behind rendering once: values come back, the bound always holds."""

from __future__ import annotations

import random
import threading

import pytest

from courses.memo import ENTRY_OVERHEAD_BYTES, LARGEST_ENTRY_SHARE, BoundedMemo

# One entry of payload size 100, and room for exactly eight of them (the fewest a memo keeps:
# no entry may take more than its share).
ENTRY = 100 + ENTRY_OVERHEAD_BYTES
EIGHT = LARGEST_ENTRY_SHARE * ENTRY


def test_a_value_comes_back_and_a_missing_key_is_none():
    memo = BoundedMemo(max_bytes=EIGHT * 10)
    memo.put("a", "<p>a</p>", size=100)
    assert memo.get("a") == "<p>a</p>"
    assert memo.get("b") is None
    assert (memo.hits, memo.misses) == (1, 1)


def test_the_least_recently_used_entry_goes_first():
    memo = BoundedMemo(max_bytes=EIGHT)
    for key in "abcdefgh":
        memo.put(key, key.upper(), size=100)
    # Reading 'a' makes it the most recent: 'b' is now the oldest.
    assert memo.get("a") == "A"
    memo.put("i", "I", size=100)
    assert memo.get("b") is None
    assert [memo.get(key) for key in "acdefghi"] == list("ACDEFGHI")
    assert memo.evictions == 1
    assert memo.size_bytes == EIGHT


def test_the_bound_holds_whatever_is_put():
    rng = random.Random(12)
    bound = 50_000
    memo = BoundedMemo(max_bytes=bound)
    for n in range(5_000):
        key = rng.randrange(800)
        memo.put(key, str(n), size=rng.randrange(0, 2 * bound // LARGEST_ENTRY_SHARE))
        assert memo.size_bytes <= bound
        if n % 7 == 0:
            memo.get(rng.randrange(800))
    assert 0 < len(memo) < 800
    assert memo.evictions > 0


def test_an_entry_above_its_share_is_not_kept_and_pushes_nothing_out():
    bound = 2 * EIGHT
    memo = BoundedMemo(max_bytes=bound)
    memo.put("kept", "K", size=100)
    # With its overhead, one byte over its share.
    memo.put("huge", "H", size=bound // LARGEST_ENTRY_SHARE - ENTRY_OVERHEAD_BYTES + 1)
    assert memo.get("huge") is None
    assert memo.get("kept") == "K"
    assert len(memo) == 1


def test_putting_a_key_again_counts_its_size_once():
    memo = BoundedMemo(max_bytes=EIGHT * 10)
    memo.put("a", "old", size=100)
    memo.put("a", "new", size=100)
    assert memo.get("a") == "new"
    assert memo.size_bytes == ENTRY
    assert len(memo) == 1


def test_a_zero_bound_empties_the_memo_and_keeps_nothing():
    memo = BoundedMemo(max_bytes=EIGHT * 10)
    memo.put("a", "A", size=100)
    memo.resize(max_bytes=0)
    assert (len(memo), memo.size_bytes) == (0, 0)
    memo.put("b", "B", size=0)
    assert memo.get("b") is None
    memo.resize(max_bytes=EIGHT * 10)
    memo.put("b", "B", size=0)
    assert memo.get("b") == "B"


def test_shrinking_pushes_out_the_oldest_until_it_fits():
    memo = BoundedMemo(max_bytes=EIGHT * 10)
    for key in "abcd":
        memo.put(key, key, size=100)
    memo.resize(max_bytes=2 * ENTRY)
    assert [memo.get(key) for key in "abcd"] == [None, None, "c", "d"]


def test_clear_forgets_everything():
    memo = BoundedMemo(max_bytes=EIGHT * 10)
    memo.put("a", "A", size=100)
    memo.clear()
    assert (memo.get("a"), len(memo), memo.size_bytes) == (None, 0, 0)


@pytest.mark.parametrize("bound", [-1, -4096])
def test_a_negative_bound_is_refused(bound):
    with pytest.raises(ValueError, match="max_bytes must be 0 or more"):
        BoundedMemo(max_bytes=bound)
    memo = BoundedMemo(max_bytes=EIGHT)
    with pytest.raises(ValueError, match="max_bytes must be 0 or more"):
        memo.resize(max_bytes=bound)
    assert memo.max_bytes == EIGHT


def test_threads_sharing_a_memo_keep_its_count_true():
    bound = 40 * ENTRY
    memo = BoundedMemo(max_bytes=bound)

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(2_000):
            key = rng.randrange(100)
            if memo.get(key) is None:
                memo.put(key, str(key), size=100)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert memo.size_bytes == len(memo) * ENTRY <= bound
    assert memo.hits + memo.misses == 8 * 2_000
