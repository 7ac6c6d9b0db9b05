import functools

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@functools.cache
def _window_rows(kv, window):
    """Keyed by the pool handed in: another pool is another entry."""
    if window <= 0 or not isinstance(kv, SWAKVPool):
        return ()
    return tuple(i for i, (_, swa) in kv.layers_mapping.items() if swa)


class BatchKeyedAttnBackend(AttentionBackend):
    """Memos and caches keyed by the pool each batch hands in (passed down to helpers under
    another name, by keyword, or read again off the batch): each pool gets its own entry."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = model_runner.sliding_window_size or -1
        self._maps = {}
        self._kinds = {}

    def _mapping_for(self, kv):
        return self._maps.setdefault(kv, getattr(kv, "full_to_swa_index_mapping", None))

    def _windowed(self, kv) -> bool:
        if kv not in self._kinds:
            self._kinds[kv] = isinstance(kv, SWAKVPool) and self.window > 0
        return self._kinds[kv]

    @functools.lru_cache(maxsize=4)
    def _sub_pool(self, kv):
        return kv.swa_kv_pool if isinstance(kv, SWAKVPool) else None

    def _translate(self, loc, *, kv):
        mapping = self._mapping_for(kv)
        return loc if mapping is None else mapping[loc]

    def init_forward_metadata(self, forward_batch):
        kv = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        if self._windowed(kv):
            loc = self._translate(loc, kv=kv)
        self.loc = loc

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        sub = self._sub_pool(forward_batch.token_to_kv_pool)
        rows = _window_rows(forward_batch.token_to_kv_pool, window=self.window)
        pool = sub if sub is not None and layer.layer_id in rows else forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id)[self.loc]
