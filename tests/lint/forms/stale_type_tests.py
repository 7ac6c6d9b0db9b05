"""SWA flags decided once from a type test on the pool or the allocator, in every spelling."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.triton_backend import TritonAttnBackend
from sglang.srt.mem_cache.allocator import SWATokenToKVPoolAllocator
from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_SWA_POOL_TYPES = (SWAKVPool, BaseSWAKVPool)


class TupleIsinstanceAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.is_swa = isinstance(pool, (SWAKVPool, BaseSWAKVPool))  # expect: KVP002
        self.swa_enabled = isinstance(pool, _SWA_POOL_TYPES)  # expect: KVP002


class IssubclassAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool_cls = type(model_runner.token_to_kv_pool)
        self.hybrid_swa = issubclass(pool_cls, BaseSWAKVPool)  # expect: KVP002


class TypeIdentityAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.swa_by_eq = type(pool) == SWAKVPool  # expect: KVP002
        self.swa_by_class = pool.__class__ is SWAKVPool  # expect: KVP002
        self.swa_by_name = "SWA" in type(pool).__name__  # expect: KVP002
        self.swa_by_prefix = pool.__class__.__name__.startswith("SWA")  # expect: KVP002


class DuckTestAttnBackend(TritonAttnBackend):
    def __init__(self, model_runner, skip_prefill=False):
        super().__init__(model_runner, skip_prefill)
        pool = model_runner.token_to_kv_pool
        self.can_translate = hasattr(pool, "translate_loc_from_full_to_swa")  # expect: KVP002
        self.has_swa_subpool = getattr(pool, "swa_kv_pool", None) is not None  # expect: KVP002


class AnyAllTypeTestAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.any_swa = any(isinstance(pool, t) for t in _SWA_POOL_TYPES)  # expect: KVP002
        self.all_swa = all(isinstance(p, SWAKVPool) for p in (pool,))  # expect: KVP002


class AllocatorTypeAttnBackend(AttentionBackend):
    """The allocator's type says nothing about the pool an EAGLE draft owns."""

    def __init__(self, model_runner):
        super().__init__()
        allocator = model_runner.token_to_kv_pool_allocator
        self.swa_allocator = isinstance(allocator, SWATokenToKVPoolAllocator)  # expect: KVP002


class MatchPatternAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        match model_runner.token_to_kv_pool:
            case SWAKVPool(swa_layer_nums=n) if n > 0:
                self.sliding_enabled = True  # expect: KVP002
            case _:
                self.sliding_enabled = False  # expect: KVP002

    def _page_table(self, metadata):
        return metadata.swa_page_table if self.sliding_enabled else metadata.page_table  # expect: KVP003
