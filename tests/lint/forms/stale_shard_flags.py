"""Flags decided from a pool that a non-SWA type test picked (a page-interleaved shard pool) and
flags recomputed per forward from a gated stale flag (DSA's use_mha).

A shard pool's presence is no SWA test: never KVP002, never the SWA remedy; the stale capability
is reported (KVP001 where kept, KVP003 where gated, both with the pool-type text). A value made
again on every forward from a flag gated in that statement is that gate's finding, not a second
one; a plain per-forward copy of an SWA flag still gates like the flag.
"""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.memory_pool import PageInterleaveKVPoolMixin
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def sharded(pool):
    return pool if isinstance(pool, PageInterleaveKVPoolMixin) else None


class ShardHelperAttnBackend(AttentionBackend):
    """A module helper; the capability gated in a per-forward recomputation."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._shard = sharded(self.token_to_kv_pool)  # expect: KVP001
        self.one_shot = model_runner.dcp_size == 1 and self._shard is None  # expect: KVP001
        self.use_dense = False

    def init_forward_metadata(self, forward_batch):
        self.use_dense = (
            self.one_shot  # expect: KVP003
            and forward_batch.extend_num_tokens < 4096
        )
        if not self.use_dense:
            forward_batch.sparse = True

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._dense(q) if self.use_dense else self._sparse(q)


class InlineShardAttnBackend(AttentionBackend):
    """The pick inline, its presence spelled with bool() and `not`."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self._paged = pool if isinstance(pool, PageInterleaveKVPoolMixin) else None  # expect: KVP001
        self.publish_cpu_lens = bool(self._paged)  # expect: KVP001
        self.dense_ok = not self._paged  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.publish_cpu_lens:  # expect: KVP003
            forward_batch.cpu_lens = forward_batch.seq_lens.cpu()
        forward_batch.dense = "dense" if self.dense_ok else "sparse"  # expect: KVP003


class SwaTwinAttnBackend(AttentionBackend):
    """Twins: the same shapes on an SWA sub-pool are the SWA flag; a plain per-forward copy of
    a stale flag gates like the flag (its read is no gate of its own)."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self._sub = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None  # expect: KVP001
        self.has_swa = self._sub is not None  # expect: KVP002
        self.swa_now = False

    def init_forward_metadata(self, forward_batch):
        self.swa_now = self.has_swa

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.swa_now:  # expect: KVP003
            return self._swa(q)
        return self._full(q)
