"""Builders that keep nothing of the pool on the backend they build (issue 13, det15): the
window, the model's dtype, the device, the allocator-consulting resolver's result, a name;
a builder that only builds and returns; code handed the backend per forward. The backend's
gates on those are geometry or the resolved pool."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

BACKENDS = {}


class WindowedBuiltAttnBackend(AttentionBackend):
    window_override = None

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self._swa_kv_pool is not None:
            loc = self._swa_kv_pool.translate_loc_from_full_to_swa(loc)
        if self.window_override is not None:
            forward_batch.seq_lens.clamp_(max=self.window_override)
        return loc


def resolve_swa_kv_pool(model_runner):
    pool = model_runner.token_to_kv_pool
    if isinstance(pool, SWAKVPool):
        return pool
    kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return kvcache if isinstance(kvcache, SWAKVPool) else None


def create_windowed_backend(runner):
    backend = WindowedBuiltAttnBackend(runner)
    backend._swa_kv_pool = resolve_swa_kv_pool(runner)
    backend.window_override = runner.sliding_window_size
    backend.model_dtype = runner.model_config.dtype
    setattr(backend, "device", runner.device)
    BACKENDS["windowed"] = backend
    return backend


def create_plain_backend(model_runner):
    return WindowedBuiltAttnBackend(model_runner)


def _stamp(backend, model_runner):
    backend.page_size = model_runner.page_size
    backend.swa_window = model_runner.sliding_window_size


def create_stamped_backend(model_runner):
    backend = WindowedBuiltAttnBackend(model_runner)
    _stamp(backend, model_runner)
    return backend


def prepare_forward(attn_backend, forward_batch):
    attn_backend.forward_pool = attn_backend.token_to_kv_pool
    attn_backend.batch_size = forward_batch.batch_size
