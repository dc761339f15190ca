"""Per-learner variant seeds that cannot be guessed without the server's secret."""

from __future__ import annotations

import hashlib
import hmac

_SEED_MASK = (1 << 63) - 1


def _encode_part(part: str | int | bytes) -> bytes:
    # A type tag plus a length prefix keeps ("ab", "c") and ("a", "bc"), or 1 and "1", apart.
    if isinstance(part, bool):
        raise TypeError("seed parts must be str, int or bytes, not bool")
    if isinstance(part, bytes):
        tag, raw = b"b", part
    elif isinstance(part, str):
        tag, raw = b"s", part.encode("utf-8")
    elif isinstance(part, int):
        tag, raw = b"i", str(part).encode("ascii")
    else:
        raise TypeError(f"seed parts must be str, int or bytes, not {type(part).__name__}")
    return tag + len(raw).to_bytes(4, "big") + raw


def derive_seed(secret: bytes | str, *parts: str | int | bytes) -> int:
    """HMAC-SHA256 of the parts as a 63-bit non-negative int, e.g. derive_seed(key, 'quiz', 7)."""
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    if not isinstance(key, bytes):
        raise TypeError("secret must be bytes or str")
    if not key:
        # An empty key would make every learner's numbers predictable.
        raise ValueError("secret must not be empty")
    message = b"".join(_encode_part(part) for part in parts)
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & _SEED_MASK
