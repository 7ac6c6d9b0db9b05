"""Look-alikes of stale_handed_inners.py: parameters named like backends that are no
attention backend (a kernel name, a linear-attention state backend) and multi-step draft
wrappers (no backend by lineage: FROZEN_KV swaps their steps). A wrapper whose
token_to_kv_pool setter hands the pool on to the inner backend it was given is KVP001's VALID
SwapAwareBackend."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.mamba.mamba import MambaAttnBackendBase


class KernelNamedAttnBackend(AttentionBackend):
    def __init__(self, model_runner, backend: str = "trtllm-gen", state_backend: MambaAttnBackendBase = None):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.backend = backend
        self.state_backend = state_backend
        self.workspace = 1 if self.backend == "cute-dsl" else 2

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id) if self.workspace else q


class StepsMultiStepDraftBackend:
    def __init__(self, model_runner, backends):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.attn_backends = backends

    def init_forward_metadata(self, forward_batch):
        for backend in self.attn_backends:
            backend.init_forward_metadata(forward_batch)


class KernelChoiceAttnBackend(AttentionBackend):
    def __init__(self, model_runner, backend):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kernel = backend

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id) if self.kernel == "fa3" else q
