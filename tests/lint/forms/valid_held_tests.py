"""Correct look-alikes of a local holding a test: the same tests of the pool read this forward
(``vars(self.token_to_kv_pool)``, ``isinstance(self.token_to_kv_pool, ...)``), and tests of
what was kept that is no pool state (layer ids, constant names)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LiveHeldTestsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window_layers = frozenset(range(0, model_runner.model_config.num_hidden_layers, 2))
        self.modes = ("decode", "extend")

    def init_forward_metadata(self, forward_batch):
        has_window = "swa_kv_pool" in vars(self.token_to_kv_pool)
        if has_window:
            forward_batch.windowed = True
        known = forward_batch.forward_mode.name.lower() in self.modes
        forward_batch.loc = forward_batch.out_cache_loc if known else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        windowed = isinstance(self.token_to_kv_pool, SWAKVPool)
        if windowed:
            return q
        on_window = layer.layer_id in self.window_layers
        if on_window:
            return k
        ducked = hasattr(self.token_to_kv_pool, "translate_loc_from_full_to_swa")
        return v if ducked else q
