"""The pool reached by routes other than the runner or ``self.token_to_kv_pool``: SGLang's
forward-context accessors outside per-forward code, ``with`` targets, and module helpers the
backend hands itself to."""
from __future__ import annotations

import contextlib

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
from sglang.srt.model_executor.forward_context import get_forward_context, get_token_to_kv_pool
from vendor.pools import pinned


def _setup(table, backend):
    backend.windowed = hasattr(backend.token_to_kv_pool, "swa_kv_pool")  # expect: KVP002


def _rows(table, backend):
    while backend.windowed and table is None:  # expect: KVP003
        table = backend.fallback
    return table if not backend.windowed else None  # expect: KVP003


class ContextPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.fallback = None
        self.ctx_is_swa = isinstance(  # expect: KVP002
            get_forward_context().attn_backend.token_to_kv_pool, SWAKVPool)
        with self._sub(model_runner) as sub, pinned(model_runner.token_to_kv_pool) as held:
            self.sub = sub  # expect: KVP001
            self.held_map = held.full_to_swa_index_mapping  # expect: KVP001
        _setup(None, self)
        self._mapping = None

    @contextlib.contextmanager
    def _sub(self, model_runner):
        yield getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None)

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.graph_keys = get_token_to_kv_pool().get_key_buffer(0)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self._mapping is None:
            self._mapping = get_token_to_kv_pool().full_to_swa_index_mapping  # expect: KVP001
        forward_batch.rows = _rows(forward_batch.table, self)
