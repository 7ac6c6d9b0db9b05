"""Module globals set from pool state (in the class, or in a module function the class calls
with the pool: ``global X`` there) and tested later: module-level sinks and gates. A helper's
store is reported where it stands (what the fix rewrites), made by the class's call of it."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_FULL_TO_SWA = None
_SWA_ON = False
_WINDOW_POOL = None


def _install(pool):
    global _FULL_TO_SWA, _SWA_ON
    _FULL_TO_SWA = getattr(pool, "full_to_swa_index_mapping", None)  # expect: KVP001
    _SWA_ON = isinstance(pool, SWAKVPool)  # expect: KVP002


def _remember(sub):
    global _WINDOW_POOL
    _WINDOW_POOL = sub  # expect: KVP001


class ModuleStateAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        _install(model_runner.token_to_kv_pool)
        _remember(getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None))

    def init_forward_metadata(self, forward_batch):
        if _FULL_TO_SWA is None:  # expect: KVP003
            return
        forward_batch.swa = True if _SWA_ON else False  # expect: KVP003
        forward_batch.sub = _WINDOW_POOL or None  # expect: KVP003


def _translate(loc):
    if _FULL_TO_SWA is None:  # expect: KVP003
        return loc
    return _FULL_TO_SWA[loc]


def _windowed():
    return _SWA_ON


class ModuleHelpersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        _install(model_runner.token_to_kv_pool)

    def init_forward_metadata(self, forward_batch):
        forward_batch.loc = _translate(forward_batch.out_cache_loc)
        if _windowed():  # expect: KVP003
            forward_batch.swa = True
