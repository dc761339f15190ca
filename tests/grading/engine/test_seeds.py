"""Seeds derived from the server secret."""

import pytest

from grading.engine import derive_seed


def test_deterministic_and_in_range():
    seed = derive_seed(b"secret", "quiz-1", 42, "problem-a")
    assert seed == derive_seed(b"secret", "quiz-1", 42, "problem-a")
    assert 0 <= seed < 2**63


def test_str_secret_equals_its_utf8_bytes():
    assert derive_seed("clé", "a") == derive_seed("clé".encode(), "a")


def test_matches_hmac_sha256_of_encoded_parts():
    import hashlib
    import hmac

    message = b"s" + (3).to_bytes(4, "big") + b"abc" + b"i" + (1).to_bytes(4, "big") + b"7"
    digest = hmac.new(b"k", message, hashlib.sha256).digest()
    expected = int.from_bytes(digest[:8], "big") & ((1 << 63) - 1)
    assert derive_seed(b"k", "abc", 7) == expected


def test_parts_are_not_ambiguous():
    assert derive_seed(b"k", "ab", "c") != derive_seed(b"k", "a", "bc")
    assert derive_seed(b"k", 1) != derive_seed(b"k", "1")
    assert derive_seed(b"k", b"x") != derive_seed(b"k", "x")


def test_secret_and_parts_change_the_seed():
    seeds = {derive_seed(b"k", "learner", n) for n in range(200)}
    assert len(seeds) == 200
    assert derive_seed(b"k1", "x") != derive_seed(b"k2", "x")


def test_rejects_empty_secret_and_odd_parts():
    with pytest.raises(ValueError, match="empty"):
        derive_seed(b"", "x")
    with pytest.raises(TypeError):
        derive_seed(b"k", 1.5)
    with pytest.raises(TypeError):
        derive_seed(b"k", True)
