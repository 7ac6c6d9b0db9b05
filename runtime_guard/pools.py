"""What counts as an SWA pool, a unified allocator, a window-routing pool — as SGLang tests it.

Every predicate is ``isinstance`` against SGLang's own class, so an object whose ``__class__``
is that class (a ``MagicMock(spec=SWAKVPool)``, a proxy) counts exactly as it does for the
backend's own ``isinstance`` test. The class is looked up in ``sys.modules`` and never
imported: while SGLang's module is not loaded no object can be an instance of its class, so
the answer is False without the import (``runtime_guard`` imports neither torch nor SGLang).

Consumers disagree on the predicate (SGLang #37550): trtllm, aiter, FlashAttention, triton,
TorchNative, IntelAMX, XPU and Ascend test ``SWAKVPool``; flashinfer and the
``KVIndexTranslator`` test ``BaseSWAKVPool``. Each backend row names its own.
"""

from __future__ import annotations

import sys
from typing import Any, Optional

_MEM_CACHE = "sglang.srt.mem_cache."
SWA_KV_POOL = (_MEM_CACHE + "swa_memory_pool", "SWAKVPool")
BASE_SWA_KV_POOL = (_MEM_CACHE + "base_swa_memory_pool", "BaseSWAKVPool")
DEEPSEEK_V4_POOL = (_MEM_CACHE + "deepseek_v4_memory_pool", "DeepSeekV4TokenToKVPool")
UNIFIED_DRAFT_POOL = _MEM_CACHE + "unified_draft_pool"
UNIFIED_ALLOCATORS = (
    (_MEM_CACHE + "allocator.unified_hybrid_swa", "UnifiedSWAAllocatorBase"),
    (_MEM_CACHE + "allocator.unified_mamba", "UnifiedMambaTokenToKVPoolAllocator"),
)

_found: dict = {}


def sglang_class(ref: tuple) -> Optional[type]:
    """SGLang's class ``(module, name)`` if its module is loaded, else None (never imports)."""
    cls = _found.get(ref)
    if cls is None:
        cls = getattr(sys.modules.get(ref[0]), ref[1], None)
        if isinstance(cls, type):
            _found[ref] = cls
    return cls


def _is(obj: Any, ref: tuple) -> bool:
    cls = sglang_class(ref)
    return cls is not None and obj is not None and isinstance(obj, cls)


def is_swa_kv_pool(pool: Any) -> bool:
    """``isinstance(pool, SWAKVPool)``: trtllm, aiter, FA, triton, TorchNative, AMX, XPU, Ascend."""
    return _is(pool, SWA_KV_POOL)


def is_base_swa_kv_pool(pool: Any) -> bool:
    """``isinstance(pool, BaseSWAKVPool)``: flashinfer's resolver (it also accepts DSv4 pools)."""
    return _is(pool, BASE_SWA_KV_POOL)


def is_base_swa_kv_pool_class(cls: Any) -> bool:
    """``issubclass(cls, BaseSWAKVPool)``: a pool class kept where a verdict would be."""
    base = sglang_class(BASE_SWA_KV_POOL)
    return base is not None and isinstance(cls, type) and issubclass(cls, base)


def routes_window_layers(pool: Any) -> bool:
    """Whether a non-translating ``KVIndexTranslator`` built over ``pool`` has a
    sliding-window id space: a ``BaseSWAKVPool`` other than a DSv4 pool with a request window."""
    if not is_base_swa_kv_pool(pool):
        return False
    return not _is(pool, DEEPSEEK_V4_POOL) or getattr(pool, "request_window", None) is None


def is_unified_allocator(allocator: Any) -> bool:
    """An allocator whose ids are virtual (``--enable-unified-memory``, SGLang #36403)."""
    return any(_is(allocator, ref) for ref in UNIFIED_ALLOCATORS)


def fused_draft_host(pool: Any) -> Any:
    """The target allocator a fused unified draft pool lives in (SGLang's own
    ``fused_draft_host_allocator``), or None."""
    finder = getattr(sys.modules.get(UNIFIED_DRAFT_POOL), "fused_draft_host_allocator", None)
    return finder(pool) if callable(finder) else None
