"""A memo of pure results, bounded in bytes, least recently used out first, safe across threads.

`courses.markup.render_markup` keeps each worker's rendered HTML here, keyed by the renderer's
version and the source text: what a page costs then is its queries and its template.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

# What one entry costs besides its key's and value's strings: the key tuple, the ordered dict's
# slot and link, the (value, size) pair: about 230 bytes measured with tracemalloc on CPython
# 3.13, rounded up so the bound holds (bench/pages_bench.py measures it again).
ENTRY_OVERHEAD_BYTES = 300
# No single entry may take more than this share of the budget, so one huge text cannot push
# every other entry out (it is still rendered, just not kept).
LARGEST_ENTRY_SHARE = 8


class BoundedMemo[Value]:
    """Values by key, at most `max_bytes` of them by the sizes given to `put`; 0 keeps nothing.

    `memo.put(key, value, size=n)` then `memo.get(key)` gives the value back until enough newer
    or more recently read entries push it out.
    """

    def __init__(self, *, max_bytes: int) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be 0 or more, not {max_bytes}")
        self._max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, tuple[Value, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.evictions = 0

    @property
    def max_bytes(self) -> int:
        return self._max_bytes

    @property
    def size_bytes(self) -> int:
        """The sum of the kept entries' sizes (overhead included): never above `max_bytes`."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> Value | None:
        """The value kept for key (now the most recently used), or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return entry[0]

    def put(self, key: Hashable, value: Value, *, size: int) -> None:
        """Keep value under key, pushing out the least recently used entries to stay in bounds."""
        size += ENTRY_OVERHEAD_BYTES
        if size > self._max_bytes // LARGEST_ENTRY_SHARE:
            return
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self._bytes -= previous[1]
            self._entries[key] = (value, size)
            self._bytes += size
            self._shrink()

    def resize(self, *, max_bytes: int) -> None:
        """A new bound, pushing out what no longer fits; 0 empties the memo and keeps nothing."""
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be 0 or more, not {max_bytes}")
        with self._lock:
            self._max_bytes = max_bytes
            self._shrink()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def _shrink(self) -> None:
        while self._bytes > self._max_bytes:
            _key, (_value, size) = self._entries.popitem(last=False)
            self._bytes -= size
            self.evictions += 1
