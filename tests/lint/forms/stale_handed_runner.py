from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def current_window(runner):
    pool = runner.token_to_kv_pool
    return pool if isinstance(pool, SWAKVPool) else None


class HandedRunnerBackend(AttentionBackend):
    """The runner handed per forward to helpers that read its pool: the draft's own pool,
    never the one FROZEN_KV swaps into the backend."""

    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        window = current_window(self.model_runner)  # expect: KVP001
        self.win_loc = window.translate_loc_from_full_to_swa(loc) if window is not None else loc

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self._buffers(owner=self.model_runner)  # expect: KVP001
        return kv.get_key_buffer(layer.layer_id)

    def _buffers(self, owner):
        return owner.token_to_kv_pool
