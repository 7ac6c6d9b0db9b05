"""Context managers over a pool: geometry, and a mapping lease for one forward."""
from __future__ import annotations

import contextlib


class HeadLease:
    def __init__(self, pool):
        self._pool = pool

    def __enter__(self):
        return self._pool.head_num, self._pool.head_dim

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def mapping_scope(pool):
    yield getattr(pool, "full_to_swa_index_mapping", None)
