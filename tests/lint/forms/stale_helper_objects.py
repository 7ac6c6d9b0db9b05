"""Helper objects built around the pool in ``__init__``: the helper is persisted pool state."""
from __future__ import annotations

from types import SimpleNamespace

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class _PoolHolder:
    def __init__(self, pool, page_size=1):
        self.page_size = page_size
        self.kv_pool = pool

    def write(self, loc):
        return self.kv_pool.get_key_buffer(0), loc


class _SubPoolHolder:
    def __init__(self, pool):
        self._set_window(pool)

    def _set_window(self, pool):
        self.window_pool = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else pool


class _Probe:
    def __init__(self, pool):
        self.is_swa = isinstance(pool, SWAKVPool)
        self.head_dim = pool.head_dim


class _Outer:
    def __init__(self, pool):
        self.inner = _PoolHolder(pool)


class _FromRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool


class _CopiesBackendPool:
    def __init__(self, backend):
        self.pool = backend.token_to_kv_pool  # the backend's pool at construction: a copy


class _Heir(_PoolHolder):
    pass


class _Passes(_PoolHolder):
    def __init__(self, pool):
        super().__init__(pool)


class HelperFormsAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        self.holder = _PoolHolder(pool, 16)  # expect: KVP001
        self.by_keyword = _PoolHolder(page_size=16, pool=pool)  # expect: KVP001
        self.write = _PoolHolder(pool).write  # expect: KVP001
        helper = _PoolHolder(pool)
        self.writers = [helper.write]  # expect: KVP001
        self.meta = SimpleNamespace()
        self.meta.window = _SubPoolHolder(pool)  # expect: KVP001
        type(self).shared_probe = _Probe(pool)  # expect: KVP001
        self.outer = _Outer(pool)  # expect: KVP001
        self.from_runner = _FromRunner(model_runner)  # expect: KVP001
        self.copy = _CopiesBackendPool(self)  # expect: KVP001
        self.heir = _Heir(pool)  # expect: KVP001
        self.passes = _Passes(pool)  # expect: KVP001
        self.later = lambda loc: helper.write(loc)  # expect: KVP001
        self._init_probe(pool)

    def _init_probe(self, pool):
        self.probe = _Probe(pool)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if self.probe.is_swa:  # expect: KVP003
            return q
        return q if self.probe.head_dim > 64 else k


class _Inner(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


class WrapperFormsAttnBackend(AttentionBackend):
    """Inner backends built from the runner by a backend whose own pool is the swapped one."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.decode_backend = _Inner(model_runner)  # expect: KVP001
        self.by_mode = {m: _Inner(model_runner) for m in ("decode", "extend")}  # expect: KVP001
        setattr(self, "extend_backend", _Inner(model_runner))  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch)
