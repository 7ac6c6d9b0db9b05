"""Every SGLang attention backend that holds SWA state, described as data (design §4).

One row per class: where its SWA state lives (the resolved pool, boolean flags, cached
full->SWA mappings, helper objects holding a copy of the pool), which methods launch kernels,
which build metadata (eager, CUDA-graph capture and replay), and how to read the page table or
token locations a launch gets (``reader``). The guard, the fix and ``poolguard guard-status``
all read this table; nothing here imports torch or SGLang.

The invariant is the same for every row and needs no remembered state: the backend's SWA state
agrees with the pool its next launch reads (``backend.token_to_kv_pool``, or the forward
batch's on SGLang releases whose backends hold none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

ATTENTION = "sglang.srt.layers.attention."
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

# Readers of what a launch reads, for bounds mode (see runtime_guard.hooks.launch_table):
LAYER_PAGE_TABLE = "layer_page_table"  # backend._get_layer_page_table(layer, batch): pages
METADATA_PAGE_TABLE = "metadata_page_table"  # forward_metadata.(swa_)page_table: pages
WRITE_LOCATIONS = "write_locations"  # the (SWA) token slots the launch writes K/V to


@dataclass(frozen=True)
class BackendSpec:
    """Where one backend class keeps SWA state and how a launch reaches the kernel."""

    module: str
    name: str
    pool_attrs: tuple = ()
    flag_attrs: tuple = ()
    mapping_attrs: tuple = ()
    # (helper attribute, its pool attribute): objects built in __init__ with a copy of the pool
    pool_copies: tuple = ()
    # multi-step draft backends: the attribute listing their per-step backends
    children: Optional[str] = None
    launch: tuple = LAUNCH
    metadata: tuple = METADATA
    reader: Optional[str] = None
    # a state attribute whose SWA/non-SWA value the fix cannot set (None when it can)
    not_fixable: Optional[str] = None

    @property
    def target(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def state_attrs(self) -> tuple:
        return self.pool_attrs + self.flag_attrs + self.mapping_attrs


_FLASHINFER_COPIES = (
    ("indices_updater_decode", "_swa_kv_pool"),
    ("indices_updater_prefill", "_swa_kv_pool"),
)
_SWA_FLAG = ("use_sliding_window_kv_pool",)

BACKENDS: tuple = (
    BackendSpec(
        ATTENTION + "trtllm_mha_backend", "TRTLLMHAAttnBackend",
        pool_attrs=("_swa_kv_pool",), flag_attrs=_SWA_FLAG,
        mapping_attrs=("_swa_full_to_swa_mapping",), pool_copies=_FLASHINFER_COPIES,
        reader=LAYER_PAGE_TABLE,
    ),
    BackendSpec(
        ATTENTION + "trtllm_mha_backend", "TRTLLMHAAttnMultiStepDraftBackend",
        children="attn_backends", launch=(),
    ),
    BackendSpec(
        ATTENTION + "flashinfer_backend", "FlashInferAttnBackend",
        pool_attrs=("_swa_kv_pool",), flag_attrs=_SWA_FLAG, pool_copies=_FLASHINFER_COPIES,
        reader=WRITE_LOCATIONS,
    ),
    BackendSpec(
        ATTENTION + "flashinfer_backend", "FlashInferMultiStepDraftBackend",
        children="attn_backends", launch=(),
    ),
    BackendSpec(
        ATTENTION + "flashattention_backend", "FlashAttentionBackend",
        flag_attrs=_SWA_FLAG, reader=METADATA_PAGE_TABLE,
    ),
    BackendSpec(
        ATTENTION + "flashattention_backend", "FlashAttentionMultiStepBackend",
        children="attn_backends", launch=(),
    ),
    BackendSpec(
        ATTENTION + "triton_backend", "TritonAttnBackend",
        flag_attrs=_SWA_FLAG, reader=WRITE_LOCATIONS,
    ),
    BackendSpec(
        ATTENTION + "triton_backend", "TritonMultiStepDraftBackend",
        children="attn_backends", launch=(),
    ),
    BackendSpec(
        ATTENTION + "torch_native_backend", "TorchNativeAttnBackend",
        flag_attrs=_SWA_FLAG, reader=WRITE_LOCATIONS,
    ),
    BackendSpec(
        ATTENTION + "intel_amx_backend", "IntelAMXAttnBackend",
        flag_attrs=_SWA_FLAG, reader=WRITE_LOCATIONS,
    ),
    BackendSpec(
        ATTENTION + "intel_amx_backend", "IntelAMXMultiStepDraftBackend",
        children="attn_backends", launch=(),
    ),
    BackendSpec(
        ATTENTION + "aiter_backend", "AiterAttnBackend",
        pool_attrs=("swa_kv_pool",), flag_attrs=_SWA_FLAG, reader=WRITE_LOCATIONS,
    ),
    BackendSpec(
        ATTENTION + "aiter_backend", "AiterMultiStepDraftBackend",
        children="attn_backends", launch=(),
    ),
    BackendSpec(
        ATTENTION + "xpu_backend", "XPUAttentionBackend",
        flag_attrs=("is_hybrid_swa",) + _SWA_FLAG, reader=METADATA_PAGE_TABLE,
    ),
    BackendSpec(
        ATTENTION + "xpu_backend", "XPUMultiStepDraftBackend",
        children="attn_backends", launch=(),
    ),
    BackendSpec(
        "sglang.srt.hardware_backend.npu.attention.ascend_backend", "AscendAttnBackend",
        flag_attrs=("is_hybrid_swa",) + _SWA_FLAG, mapping_attrs=("full_to_swa_index_mapping",),
        reader=WRITE_LOCATIONS,
    ),
    BackendSpec(
        "sglang.srt.hardware_backend.npu.attention.ascend_backend",
        "AscendAttnMultiStepDraftBackend", children="attn_backends", launch=(),
    ),
)

# The spec that applies to a backend class not in the table (``verify_backend`` on a user's
# own subclass-free backend): the trtllm attribute names, which FlashInfer-derived code shares.
DEFAULT_SPEC = BACKENDS[0]
_BY_NAME = {spec.name: spec for spec in BACKENDS}
_spec_cache: dict = {}


def spec_for(cls: type) -> BackendSpec:
    """The row for ``cls``: the nearest class in its MRO that the table describes."""
    spec = _spec_cache.get(cls)
    if spec is None:
        spec = next((_BY_NAME[k.__name__] for k in cls.__mro__ if k.__name__ in _BY_NAME),
                    DEFAULT_SPEC)
        _spec_cache[cls] = spec
    return spec
