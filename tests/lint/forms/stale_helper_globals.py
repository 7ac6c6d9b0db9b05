"""Module state a helper keeps (a module container, a global set under a duck test, through a
chain of helpers): each store is reported where it stands, made by the class's once-only call;
geometry and counters a helper keeps are no state."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_TABLES = {}
_WINDOW = None
_WINDOWED = False
_PAGE = 1
_BUILT = 0


def _record_tables(pool):
    _TABLES["rows"] = pool.full_to_swa_index_mapping  # expect: KVP001


def _mark_window(pool):
    global _WINDOWED
    if hasattr(pool, "swa_kv_pool"):
        _WINDOWED = True  # expect: KVP002


def _setup(pool):
    _record_tables(pool)
    _mark_window(pool)


class ChainedHelperAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        _setup(model_runner.token_to_kv_pool)

    def init_forward_metadata(self, forward_batch):
        if _WINDOWED:  # expect: KVP003
            forward_batch.rows = _TABLES["rows"]


def _note_window(size):
    global _WINDOW
    _WINDOW = size if size else None


def _note_geometry(pool):
    global _PAGE, _BUILT
    _PAGE = pool.page_size
    _BUILT += 1


class GeometryHelperAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        _note_window(model_runner.sliding_window_size)
        _note_geometry(model_runner.token_to_kv_pool)

    def init_forward_metadata(self, forward_batch):
        if _WINDOW is not None:
            forward_batch.window = _WINDOW
        if _PAGE > 1 and _BUILT:
            forward_batch.paged = True
