import functools

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LayerKeyedBatchAttnBackend(AttentionBackend):
    """Look-alike of valid_batch_pool_keys: helpers are handed the batch's pool, but their
    memos are keyed by the layer, so the first batch's pool is what every later one gets."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size or -1
        self._maps = {}
        self._kinds = {}

    def _mapping_for(self, kv, layer_id):
        return self._maps.setdefault(layer_id, getattr(kv, "full_to_swa_index_mapping", None))  # expect: KVP001

    def _windowed(self, kv, layer_id) -> bool:
        if layer_id not in self._kinds:  # expect: KVP003
            self._kinds[layer_id] = isinstance(kv, SWAKVPool) and self.window > 0  # expect: KVP002
        return self._kinds[layer_id]

    @functools.lru_cache(maxsize=4)
    def _sub_pool(self, layer_id):  # expect: KVP001
        kv = self.token_to_kv_pool
        return kv.swa_kv_pool if isinstance(kv, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        if self._windowed(kv, layer.layer_id):
            mapping = self._mapping_for(kv, layer.layer_id)
            loc = mapping[loc]
        sub = self._sub_pool(layer.layer_id)
        pool = sub if sub is not None else kv  # expect: KVP003
        return pool.get_key_buffer(layer.layer_id)[loc]
