"""Builders in the module of the backend they build (issue 13, det15): registry creators that
keep pool state on the backend after building it, directly, through ``setattr``, an alias or a
helper of the module, and the backend's gates on what they keep. Reported at the builder's
store (there is no line inside the backend to point at); the gates where they decide."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

BACKENDS = {}


def register_backend(name):
    def decorator(fn):
        BACKENDS[name] = fn
        return fn

    return decorator


class CreatedAttnBackend(AttentionBackend):
    target_is_hybrid = False

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.swa_pool = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.target_is_hybrid:  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        if self.swa_pool is not None:  # expect: KVP003
            loc = self.swa_pool.translate_loc_from_full_to_swa(loc)
        return loc


@register_backend("created")
def create_backend(runner):
    backend = CreatedAttnBackend(runner)
    kvcache = runner.token_to_kv_pool_allocator.get_kvcache()
    backend.target_is_hybrid = isinstance(kvcache, SWAKVPool)  # expect: KVP002
    return backend


@register_backend("created_sub_pool")
def create_sub_pool_backend(model_runner):
    made = CreatedAttnBackend(model_runner)
    setattr(made, "swa_pool", getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None))  # expect: KVP001
    return made


def _keep_mapping(backend, model_runner):
    backend.mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001


@register_backend("created_mapping")
def create_mapping_backend(model_runner):
    backend = CreatedAttnBackend(model_runner)
    alias = backend
    _keep_mapping(alias, model_runner)
    return backend
