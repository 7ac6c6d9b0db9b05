"""A registry module whose functions keep only geometry and classes in module state."""
from typing import Callable, Dict

BACKENDS: Dict[str, Callable] = {}
PAGE_SIZE_BY_KIND: Dict[str, int] = {}


def register(kind: str):
    def deco(cls):
        BACKENDS[kind] = cls
        return cls

    return deco


def create(kind: str, model_runner):
    backend = BACKENDS[kind](model_runner)
    PAGE_SIZE_BY_KIND[kind] = model_runner.token_to_kv_pool.page_size
    return backend


def window_of(model_runner):  # asked per call: nothing kept
    pool = model_runner.token_to_kv_pool
    return getattr(pool, "swa_kv_pool", None)
