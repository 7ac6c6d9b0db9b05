"""A local bound to a read of a module global the class set (a bare global, an attribute of a
``threading.local`` or namespace the module keeps, a ``getattr`` of one with a default,
``globals()["NAME"]``) is that read: a decision testing the local is a gate on the kept
verdict or pool state, as a direct test of the global is."""
from __future__ import annotations

import threading
import types

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_LOCAL = threading.local()
_SETTINGS = types.SimpleNamespace(windowed=False, window_pool=None)
_IS_WINDOWED = False


class ModuleFlagCopyAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        global _IS_WINDOWED
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        _LOCAL.is_swa = isinstance(pool, SWAKVPool)  # expect: KVP002
        _SETTINGS.windowed = hasattr(pool, "swa_kv_pool")  # expect: KVP002
        _SETTINGS.window_pool = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        _IS_WINDOWED = isinstance(pool, SWAKVPool)  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        flag = _LOCAL.is_swa
        if flag:  # expect: KVP003
            forward_batch.windowed = True
        windowed = getattr(_SETTINGS, "windowed", False)
        forward_batch.loc = forward_batch.out_cache_loc if not windowed else None  # expect: KVP003

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        copied = globals()["_IS_WINDOWED"]
        if copied:  # expect: KVP003
            return q
        window_pool = _SETTINGS.window_pool
        while window_pool is not None:  # expect: KVP003
            window_pool = None
        return k
