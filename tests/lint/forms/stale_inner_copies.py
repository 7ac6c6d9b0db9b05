"""State copied from inner backends a wrapper builds: what the inner held when it was copied."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.triton_backend import TritonAttnBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class InnerCopiesAttnBackend(AttentionBackend):
    def __init__(self, model_runner, extend=None):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.decode_backend = TritonAttnBackend(model_runner)
        self.extend_backend = extend or TritonAttnBackend(model_runner, skip_prefill=False)
        self.windowed = getattr(self.decode_backend, "use_sliding_window_kv_pool", False)  # expect: KVP002
        self.extend_pool = self.extend_backend.token_to_kv_pool  # expect: KVP001
        self.page_size = self.decode_backend.page_size
        self._copy_state()

    def _copy_state(self):
        self.window_pool = self.extend_backend.token_to_kv_pool.swa_kv_pool  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        for inner in (self.decode_backend, self.extend_backend):
            inner.token_to_kv_pool = self.token_to_kv_pool
        if self.windowed:  # expect: KVP003
            forward_batch.swa = True
        if isinstance(self.extend_pool, SWAKVPool):  # expect: KVP003
            forward_batch.extend_swa = True
        live = self.decode_backend.token_to_kv_pool
        forward_batch.live = live if isinstance(live, SWAKVPool) else None
