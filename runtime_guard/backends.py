"""Every SGLang attention backend that holds SWA state, described as data (design §4).

One row per class: how the backend itself tests for an SWA pool (``is_swa``), where its SWA
state lives (the resolved pool, boolean flags, cached full->SWA mappings, helpers holding a
copy of the pool or a bound method of it, aliases of the active pool), which inner backends a
wrapper delegates to, whether it launches kernels, how to read the page table or token
locations a launch gets (``reader``, a function of ``runtime_guard.readers``), and which class
of ``runtime_guard.fixed_backend`` replaces it under ``SGLANG_POOLGUARD_FIX=1``. The guard, the
fix and ``poolguard guard-status`` all read this table; nothing here imports torch or SGLang.
Subclasses SGLang ships of these classes are found at load (``runtime_guard.plugin``).

The invariant is the same for every row and needs no remembered state: the backend's SWA state
agrees with the pool its next launch reads (``backend.token_to_kv_pool``, or the forward
batch's on SGLang releases whose backends hold none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from runtime_guard import readers
from runtime_guard.pools import is_base_swa_kv_pool, is_swa_kv_pool

ATTENTION = "sglang.srt.layers.attention."
# The launches the base class dispatches when its source cannot be read (plugin derives them
# from AttentionBackend.forward).
LAUNCH = ("forward_decode", "forward_extend")
# Metadata paths, eager and CUDA graph. Names changed across releases: replay is
# init_forward_metadata_out_graph from 0.5.13 on, *_replay_cuda_graph before; capture has its
# own method before 0.5.13 and is init_forward_metadata_in_graph after.
METADATA = (
    "init_forward_metadata",
    "init_forward_metadata_out_graph",
    "init_forward_metadata_in_graph",
    "init_forward_metadata_replay_cuda_graph",
    "init_forward_metadata_capture_cuda_graph",
)
# Allocates CUDA-graph buffers sized by the SWA flag: the fix must resolve before it runs.
GRAPH_STATE = ("init_cuda_graph_state",)
# Hand a model KV buffers and slots that it writes before any launch (models/mimo_v2.py).
WRITE_BUFFERS = ("get_fused_kv_write_buffers",)


@dataclass(frozen=True)
class BackendSpec:
    """Where one backend class keeps SWA state and how a launch reaches the kernel."""

    module: str
    name: str
    # the backend's own test for an SWA pool (SGLang #37550: not every backend tests the same)
    is_swa: Callable = is_swa_kv_pool
    pool_attrs: tuple = ()  # the resolved SWA pool, or None
    flag_attrs: tuple = ()
    mapping_attrs: tuple = ()
    pool_copies: tuple = ()  # "helper.attr": a helper's copy of the resolved SWA pool
    # ("helper.attr", pool method name): a bound method of the SWA pool kept by a helper, or None
    bound_copies: tuple = ()
    pool_aliases: tuple = ()  # attributes that must be the active pool itself
    inner: tuple = ()  # attributes holding inner backends (or lists of them) of a wrapper
    children: Optional[str] = None  # multi-step draft backends: their per-step backends
    launches: bool = True  # False for containers whose step backends launch
    reader: Optional[Callable] = None
    separate_swa_table: bool = False  # SWA layers must get their own page table
    fixed: Optional[str] = None  # the replacement class's name in runtime_guard.fixed_backend
    # True where SGLang 0.5.23's launch and metadata paths read the SWA state only to write KV
    # (``if flag and out_cache_loc is not None``) and re-check the pool where they read it:
    # stale state is latent for a launch that writes none (a FROZEN_KV draft's). Else live.
    state_read_only_to_write: bool = False

    @property
    def target(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def state_attrs(self) -> tuple:
        return self.pool_attrs + self.flag_attrs + self.mapping_attrs


_FLASHINFER_COPIES = (
    "indices_updater_decode._swa_kv_pool",
    "indices_updater_prefill._swa_kv_pool",
)
_SWA_FLAG = ("use_sliding_window_kv_pool",)
_NPU = "sglang.srt.hardware_backend.npu.attention.ascend_backend"


def _multi_step(module: str, name: str) -> BackendSpec:
    """A multi-step draft container: its per-step backends hold the state and launch."""
    return BackendSpec(module, name, children="attn_backends", launches=False)


BACKENDS: tuple = (
    BackendSpec(
        ATTENTION + "trtllm_mha_backend", "TRTLLMHAAttnBackend",
        pool_attrs=("_swa_kv_pool",), flag_attrs=_SWA_FLAG,
        mapping_attrs=("_swa_full_to_swa_mapping",), pool_copies=_FLASHINFER_COPIES,
        reader=readers.layer_page_table, separate_swa_table=True,
        fixed="FixedTRTLLMHAAttnBackend",
    ),
    BackendSpec(
        ATTENTION + "trtllm_mha_backend", "TRTLLMHAAttnMultiStepDraftBackend",
        children="attn_backends", launches=False,
        fixed="FixedTRTLLMHAAttnMultiStepDraftBackend",
    ),
    BackendSpec(
        ATTENTION + "flashinfer_backend", "FlashInferAttnBackend", is_swa=is_base_swa_kv_pool,
        pool_attrs=("_swa_kv_pool",), flag_attrs=_SWA_FLAG, pool_copies=_FLASHINFER_COPIES,
        reader=readers.write_locations,
    ),
    _multi_step(ATTENTION + "flashinfer_backend", "FlashInferMultiStepDraftBackend"),
    BackendSpec(
        ATTENTION + "flashattention_backend", "FlashAttentionBackend",
        flag_attrs=_SWA_FLAG,
        bound_copies=(("local_attn_builder.swa_translate", "translate_loc_from_full_to_swa"),),
        reader=readers.metadata_page_table,
    ),
    _multi_step(ATTENTION + "flashattention_backend", "FlashAttentionMultiStepBackend"),
    BackendSpec(
        ATTENTION + "triton_backend", "TritonAttnBackend",
        flag_attrs=_SWA_FLAG, reader=readers.write_locations, state_read_only_to_write=True,
    ),
    _multi_step(ATTENTION + "triton_backend", "TritonMultiStepDraftBackend"),
    BackendSpec(
        ATTENTION + "torch_native_backend", "TorchNativeAttnBackend",
        flag_attrs=_SWA_FLAG, reader=readers.write_locations, state_read_only_to_write=True,
    ),
    BackendSpec(
        ATTENTION + "intel_amx_backend", "IntelAMXAttnBackend",
        flag_attrs=_SWA_FLAG, reader=readers.write_locations,
    ),
    _multi_step(ATTENTION + "intel_amx_backend", "IntelAMXMultiStepDraftBackend"),
    BackendSpec(
        ATTENTION + "aiter_backend", "AiterAttnBackend",
        pool_attrs=("swa_kv_pool",), flag_attrs=_SWA_FLAG, reader=readers.write_locations,
    ),
    _multi_step(ATTENTION + "aiter_backend", "AiterMultiStepDraftBackend"),
    BackendSpec(
        ATTENTION + "xpu_backend", "XPUAttentionBackend",
        flag_attrs=("is_hybrid_swa",) + _SWA_FLAG, reader=readers.metadata_page_table,
    ),
    _multi_step(ATTENTION + "xpu_backend", "XPUMultiStepDraftBackend"),
    BackendSpec(
        _NPU, "AscendAttnBackend",
        flag_attrs=("is_hybrid_swa",) + _SWA_FLAG, mapping_attrs=("full_to_swa_index_mapping",),
        reader=readers.write_locations,
    ),
    _multi_step(_NPU, "AscendAttnMultiStepDraftBackend"),
    # Wrappers: they copy the pool reference of the backends they hold at __init__, so a swap
    # of the wrapper's pool does not reach them.
    BackendSpec(ATTENTION + "hybrid_attn_backend", "HybridAttnBackend",
                inner=("prefill_backend", "decode_backend")),
    BackendSpec(ATTENTION + "tbo_backend", "TboAttnBackend", inner=("primary", "children")),
    BackendSpec(ATTENTION + "dots_hybrid_backend", "DotsSWAMLAAttnBackend", inner=("backend",)),
    BackendSpec(ATTENTION + "dots_hybrid_backend", "DotsHybridAttnBackend",
                inner=("dsa_backend", "swa_backend")),
    BackendSpec(ATTENTION + "minimax_sparse_backend", "MiniMaxHybridAttnBackend",
                inner=("dense", "sparse")),
    BackendSpec(ATTENTION + "minimax_sparse_backend", "MiniMaxSparseAttnBackend",
                pool_aliases=("kv_pool",)),
)

# What ``verify_backend`` assumes of a class no row describes (a user's own backend): the
# FlashInfer-family attribute names and predicate. Not installed by the plugin.
DEFAULT_SPEC = BackendSpec(
    "", "(not described)", is_swa=is_base_swa_kv_pool, pool_attrs=("_swa_kv_pool",),
    flag_attrs=_SWA_FLAG, pool_copies=_FLASHINFER_COPIES,
)
_BY_TARGET = {spec.target: spec for spec in BACKENDS}
_spec_cache: dict = {}


def described(cls: type) -> Optional[BackendSpec]:
    """The row for ``cls``: the nearest class in its MRO that the table names, or None."""
    try:
        return _spec_cache[cls]
    except KeyError:
        pass
    spec = next((_BY_TARGET[key] for key in map(_target_of, cls.__mro__) if key in _BY_TARGET),
                None)
    _spec_cache[cls] = spec
    return spec


def spec_for(cls: type) -> BackendSpec:
    """``described(cls)``, or ``DEFAULT_SPEC`` for a class no row names."""
    return described(cls) or DEFAULT_SPEC


def loaded_subclasses(*roots: type) -> list:
    """Every class loaded now that subclasses one of ``roots`` (transitively), each once, the
    roots themselves left out, in the order a depth-first walk meets them."""
    seen, todo, found = set(roots), list(roots), []
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
                found.append(sub)
    return found


def _target_of(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
