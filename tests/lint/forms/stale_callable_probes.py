"""A bound method of the pool (the translator of full-pool locations to SWA ones) kept where a
pool decision put it, None (or nothing) elsewhere: probing it per forward (callable, is not
None, bool, hasattr, a local of it, a helper returning the probe) decides on the pool the
backend was built with."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ProbedTranslateAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        if isinstance(pool, SWAKVPool):
            self.translate = pool.translate_loc_from_full_to_swa  # expect: KVP001
            self.mapping = pool.full_to_swa_index_mapping  # expect: KVP001
        else:
            self.translate = None
            self.mapping = None
        self.to_swa = None
        if hasattr(pool, "swa_kv_pool"):
            self.to_swa = pool.translate_loc_from_full_to_swa  # expect: KVP001
        try:
            self.probe = pool.translate_loc_from_full_to_swa  # expect: KVP001
        except AttributeError:
            self.probe = None

    def _should_translate(self):
        return callable(self.translate)

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        if callable(self.translate):  # expect: KVP003
            loc = self.translate(loc)
        forward_batch.swa_loc = self.to_swa(loc) if callable(self.to_swa) else loc  # expect: KVP003
        if bool(self.mapping):  # expect: KVP003
            forward_batch.swa_map = self.mapping

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        translate = self.probe
        if layer.sliding_window_size > 0 and callable(translate):  # expect: KVP003
            forward_batch.swa_loc = translate(forward_batch.out_cache_loc)
        if self._should_translate():  # expect: KVP003
            return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return None


class OnlyWhereSWAAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        if self.is_swa:  # expect: KVP003
            self.translate = self.token_to_kv_pool.translate_loc_from_full_to_swa  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if hasattr(self, "translate"):  # expect: KVP003
            forward_batch.swa_loc = self.translate(forward_batch.out_cache_loc)
        if callable(getattr(self, "translate", None)):  # expect: KVP003
            return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return None
