"""A local holding a test of kept pool state is that test, whatever the test is: a search of a
container kept from the pool (``"swa_kv_pool" in self.pool_fields``), a type or duck test of a
kept pool, a lookup in a kept dict, a comparison of what a method of the class answers or of
a local aliasing kept state. The decision testing the local is the gate, reported there, and
what the test reads is tested as the test tests it (a membership test searches what is kept
there)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class HeldTestsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        self.pool_fields = frozenset(vars(pool))  # expect: KVP001
        self.kept_pool = pool  # expect: KVP001
        self.by_kind = {"swa": pool.swa_kv_pool} if isinstance(pool, SWAKVPool) else {}  # expect: KVP001
        self.layout = "windowed" if isinstance(pool, SWAKVPool) else "flat"  # expect: KVP002

    def _layout(self):
        return self.layout

    def init_forward_metadata(self, forward_batch):
        has_window = "swa_kv_pool" in self.pool_fields
        if has_window:  # expect: KVP003
            forward_batch.windowed = True
        absent = "full_to_swa_index_mapping" not in self.pool_fields
        forward_batch.loc = None if absent else forward_batch.out_cache_loc  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        windowed = isinstance(self.kept_pool, SWAKVPool)
        if windowed:  # expect: KVP003
            return q
        ducked = hasattr(self.kept_pool, "translate_loc_from_full_to_swa")
        while ducked:  # expect: KVP003
            ducked = False
        picked = self.by_kind.get("swa") is not None
        assert not picked, "full pools only"  # expect: KVP003
        asked = self._layout() == "windowed"
        if asked:  # expect: KVP003
            return v
        layout = self.layout
        flat = layout == "flat"
        return k if flat else v  # expect: KVP003
