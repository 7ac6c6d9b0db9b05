"""Helpers of another module for ``guard_forms4``: an SWA verdict two calls deep (the called
helper names no SWA state itself; the helper it calls does), and a geometry look-alike."""

from __future__ import annotations

import blind_backends as bb


def pages_split(pool) -> bool:
    """Whether the pool's pages are split (delegates the decision)."""
    return _kind_of(pool) == "split"


def _kind_of(pool) -> str:
    return "split" if isinstance(pool, bb.SWAKVPool) else "flat"


def pages_windowed(model_runner) -> bool:
    """Whether the model's geometry has a window (delegates to a geometry helper)."""
    return _window_of(model_runner) is not None


def _window_of(model_runner):
    return getattr(model_runner, "sliding_window_size", bb.WINDOW)


def plan(backend, layer, forward_batch):
    """The first of two launch helpers between ``forward_decode`` and the read of the KV."""
    return _launch(backend.token_to_kv_pool, layer, forward_batch)


def _launch(pool, layer, forward_batch):
    bb._read_kv(pool, layer, forward_batch)
    return forward_batch.out_cache_loc
