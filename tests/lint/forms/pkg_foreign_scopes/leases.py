"""Context managers over a pool: a class-based lease and a generator."""
from __future__ import annotations

from contextlib import contextmanager


class WindowLease:
    def __init__(self, pool):
        self._pool = pool

    def __enter__(self):
        return getattr(self._pool, "swa_kv_pool", None)

    def __exit__(self, *exc):
        return False


@contextmanager
def translation(pool):
    yield pool.translate_loc_from_full_to_swa
