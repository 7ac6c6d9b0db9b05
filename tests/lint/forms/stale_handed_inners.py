"""Wrappers given their inner backends (SGLang's HybridAttnBackend: prefill and decode backends
built on the runner's pool, then handed in). FROZEN_KV MTP's topk-1 draft uses the runner's own
backend, and its swap rebinds only the wrapper's token_to_kv_pool: the inners the wrapper
delegates to keep reading the pool they were built with."""
from __future__ import annotations

from typing import List

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PairedAttnBackend(AttentionBackend):
    def __init__(self, model_runner, prefill_backend: AttentionBackend, decode_backend: AttentionBackend):
        self.model_runner = model_runner
        self.prefill_backend = prefill_backend  # expect: KVP001
        self.decode_backend = decode_backend  # expect: KVP001
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.needs_cpu_seq_lens = decode_backend.needs_cpu_seq_lens
        self.capped_by_req_pool = getattr(prefill_backend, "capped_by_req_pool", False)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache, **kwargs)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.prefill_backend.forward_extend(q, k, v, layer, forward_batch, save_kv_cache, **kwargs)


class AliasedPoolAttnBackend(AttentionBackend):
    def __init__(self, primary_backend, layer_ids):
        self.layer_ids = layer_ids
        self.inner = primary_backend  # expect: KVP001
        self.token_to_kv_pool = primary_backend.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        self.inner.init_forward_metadata(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.inner.forward_decode(q, k, v, layer, forward_batch, save_kv_cache, **kwargs)


class ListedInnersAttnBackend(AttentionBackend):
    def __init__(self, model_runner, full_backend: AttentionBackend, side_backend: AttentionBackend):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.backends: List[AttentionBackend] = [full_backend, side_backend]  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        for backend in self.backends:
            backend.init_forward_metadata(forward_batch)
