"""``if self.handles:`` calls the truth method of the object kept there: its class's
``__bool__`` (else ``__len__``) run on what the object holds. When that method tests state the
object keeps from the pool (a sub-pool, a list picked by a type test), the decision testing the
object is a decision on that state, stale after a FROZEN_KV swap like a direct test of it. A
local aliasing the object, or ``bool()`` of it, is tested the same way (``is None`` calls no
method of it). A container's emptiness is decided by what built it: a decision on the pool (a choice with an
empty side, a fill under a test), not a dict per page ratio."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WindowHandles:
    def __init__(self, pool):
        self.sub = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None

    def __bool__(self):
        return self.sub is not None


class WindowTables:
    def __init__(self, pool):
        self.tables = [pool.full_to_swa_index_mapping] if isinstance(pool, SWAKVPool) else []

    def __len__(self):
        return len(self.tables)


class LateTables:
    def __init__(self, pool):
        self.rows = []
        if hasattr(pool, "full_to_swa_index_mapping"):
            self.rows = [pool.full_to_swa_index_mapping]

    def __len__(self):
        return len(self.rows)


class RatioPools:
    """Sub-pools per page ratio: kept pool state (KVP001), but how many there are is geometry."""

    def __init__(self, pool, ratios):
        self.pools = {ratio: pool.get_pool_for_ratio(ratio) for ratio in ratios}

    def __len__(self):
        return len(self.pools)


class TruthTestedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.handles = WindowHandles(model_runner.token_to_kv_pool)  # expect: KVP001
        self.tables = WindowTables(model_runner.token_to_kv_pool)  # expect: KVP001
        self.late = LateTables(model_runner.token_to_kv_pool)  # expect: KVP001
        self.ratios = RatioPools(model_runner.token_to_kv_pool, (1, 4))  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if not self.handles:  # expect: KVP003
            return
        if self.ratios:
            forward_batch.ratios = len(self.ratios)
        while self.late:  # expect: KVP003
            break
        forward_batch.translated = True

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.tables and layer.sliding_window_size > 0:  # expect: KVP003
            return q
        held = self.handles
        if held:  # expect: KVP003
            return v
        return k if bool(self.handles) else v  # expect: KVP003
