"""Import SGLang's pool, allocator, backend and plugin modules on a machine without a GPU.

Used by the test suite, ``poolguard demo`` and the CPU benchmark. Serving code never needs it.
Two obstacles stand between a CPU-only environment and those imports:

* SGLang probes ``torch.cuda.is_available()`` at import time and picks CUDA-only code paths
  when it says yes on a machine with a GPU; we answer "no" only for the duration of the import.
* ``sglang.srt.configs`` imports torchvision, whose PyPI build links CUDA torch. Under a CPU
  torch its C ops fail to load, and torchvision then aborts while registering fake kernels for
  ``torchvision::nms``/``qnms``. Defining those two schemas first (only when they are missing)
  lets the pure-Python part of torchvision import; nothing here calls them.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace

_TORCHVISION_SCHEMAS = (
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
)
_keepalive = []  # torch.library.Library objects must outlive the import


def _define_missing_torchvision_schemas(torch) -> None:
    if hasattr(torch.ops, "torchvision") and hasattr(torch.ops.torchvision, "nms"):
        return
    try:
        import torchvision  # noqa: F401  (a working install defines its own ops)

        return
    except (ImportError, RuntimeError):
        pass
    lib = torch.library.Library("torchvision", "FRAGMENT")
    for schema in _TORCHVISION_SCHEMAS:
        name = schema.split("(", 1)[0]
        if not torch._C._dispatch_has_kernel(f"torchvision::{name}"):
            try:
                lib.define(schema)
            except RuntimeError:
                pass  # already defined
    _keepalive.append(lib)
    import sys

    for mod in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[mod]


def _first_importable(*names):
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportError(f"none of {names} could be imported")


def import_sglang_for_cpu() -> SimpleNamespace:
    """Import the SGLang modules poolguard works with and return them by role.

    Raises ImportError when SGLang (or torch) is not installed.
    """
    import torch

    real_is_available = torch.cuda.is_available
    torch.cuda.is_available = lambda: False
    try:
        _define_missing_torchvision_schemas(torch)
        swa_pool = importlib.import_module("sglang.srt.mem_cache.swa_memory_pool")
        # SWATokenToKVPoolAllocator moved to mem_cache/allocator/swa.py in 0.5.13.
        allocator = _first_importable(
            "sglang.srt.mem_cache.allocator.swa", "sglang.srt.mem_cache.swa_memory_pool"
        )
        trtllm = importlib.import_module("sglang.srt.layers.attention.trtllm_mha_backend")
        torch_native = importlib.import_module("sglang.srt.layers.attention.torch_native_backend")
        memory_pool = importlib.import_module("sglang.srt.mem_cache.memory_pool")
        frozen_kv = importlib.import_module("sglang.srt.speculative.frozen_kv_mtp_utils")
        plugins = importlib.import_module("sglang.srt.plugins")
        hook_registry = importlib.import_module("sglang.srt.plugins.hook_registry")
    finally:
        torch.cuda.is_available = real_is_available
    return SimpleNamespace(
        SWAKVPool=swa_pool.SWAKVPool,
        SWATokenToKVPoolAllocator=allocator.SWATokenToKVPoolAllocator,
        trtllm_mha_backend=trtllm,
        TRTLLMHAAttnBackend=trtllm.TRTLLMHAAttnBackend,
        TorchNativeAttnBackend=torch_native.TorchNativeAttnBackend,
        KVWriteLoc=getattr(memory_pool, "KVWriteLoc", None),  # SGLang >= 0.5.13
        frozen_kv_target_view=frozen_kv.frozen_kv_target_view,
        load_plugins=plugins.load_plugins,
        HookRegistry=hook_registry.HookRegistry,
        HookType=hook_registry.HookType,
    )
