"""A registry module: its functions keep what they decide about a pool in module state."""
from typing import Callable, Dict

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

BACKENDS: Dict[str, Callable] = {}
WINDOWED_BY_KIND: Dict[str, bool] = {}
LAST_WINDOW_MAP = None


def register(kind: str):
    def deco(cls):
        BACKENDS[kind] = cls
        return cls

    return deco


def create(kind: str, model_runner):
    global LAST_WINDOW_MAP
    backend = BACKENDS[kind](model_runner)
    WINDOWED_BY_KIND[kind] = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
    LAST_WINDOW_MAP = getattr(model_runner.token_to_kv_pool, "full_to_swa_index_mapping", None)  # expect: KVP001
    return backend
