"""Registry creators: each builds a backend, then keeps something on it. Pool state and type
tests of the pool are stale the first time FROZEN_KV swaps the backend's pool; geometry, the
resolver's result and code that runs per forward are not."""
from __future__ import annotations

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from . import pools
from .backends import BuiltAttnBackend, HandedAttnBackend

CREATORS = {}


def register(name):
    def decorator(fn):
        CREATORS[name] = fn
        return fn

    return decorator


@register("kept_sub_pool")
def create_sub_pool_backend(runner):
    backend = BuiltAttnBackend(runner)
    backend.kept_swa = getattr(runner.token_to_kv_pool, "swa_kv_pool", None)  # expect: KVP001
    return backend


@register("verdict")
def create_verdict_backend(model_runner):
    built = BuiltAttnBackend(model_runner)
    kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
    setattr(built, "target_is_hybrid", isinstance(kvcache, SWAKVPool))  # expect: KVP002
    return built


def create_aliased_backend(runner):
    backend = BuiltAttnBackend(runner)
    target = backend
    target.mapping = runner.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
    return backend


def _keep_buffers(backend, runner):
    backend.k_buffers = [runner.token_to_kv_pool.get_key_buffer(i) for i in range(2)]  # expect: KVP001


def create_helped_backend(runner):
    backend = BuiltAttnBackend(runner)
    _keep_buffers(backend, runner)
    return backend


def create_foreign_helped_backend(runner):
    backend = BuiltAttnBackend(runner)
    pools.attach_pool(backend, runner)
    return backend


def create_handed_backend(runner):
    backend = HandedAttnBackend(runner)
    pools.attach_verdict(backend, runner)
    return backend


# -- look-alikes: nothing kept from the pool ---------------------------------------------------
@register("resolved")
def create_resolved_backend(runner):
    backend = BuiltAttnBackend(runner)
    backend._swa_kv_pool = pools.resolve_swa_kv_pool(runner)
    backend.window_override = runner.sliding_window_size
    backend.model_dtype = runner.model_config.dtype
    pools.stamp_window(backend, runner)
    return backend


@register("plain")
def create_plain_backend(runner):
    return BuiltAttnBackend(runner)


def create_named_backend(runner, name: str):
    backend = HandedAttnBackend(runner)
    CREATORS[name] = backend
    backend.name = name
    backend.device = runner.device
    return backend


def prepare_forward(backend, forward_batch):
    backend.forward_pool = backend.token_to_kv_pool
    pools.note_forward(backend, forward_batch)
