"""Sub-pools, mappings, buffers and bound methods read off the active pool in ``__init__``."""
from __future__ import annotations

import weakref
from typing import Dict, List

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend


class SubPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.full_pool = pool.full_kv_pool  # expect: KVP001
        self.swa_pool = pool.swa_kv_pool  # expect: KVP001
        self.head_dim = pool.head_dim


class MainPoolHopAttnBackend(AttentionBackend):
    """A wrapper pool (e.g. a host-offload or MTP view) whose ``main_pool`` is the SWA pool."""

    def __init__(self, model_runner):
        super().__init__()
        self.kv_pool = model_runner.token_to_kv_pool  # expect: KVP001
        self._full_to_swa = self.kv_pool.main_pool.full_to_swa_index_mapping  # expect: KVP001


class PerRatioPoolsAttnBackend(AttentionBackend):
    """Compressed-KV models keep one sub-pool per compression ratio."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.present_ratios = tuple(self.token_to_kv_pool.present_ratios)
        self.ratio_pools: Dict[int, object] = {  # expect: KVP001
            ratio: self.token_to_kv_pool.get_pool_for_ratio(ratio)
            for ratio in self.present_ratios
        }


class KeyBufferListAttnBackend(AttentionBackend):
    """Per-layer K/V buffers captured once; the dtype read beside them is geometry."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        num_layers = model_runner.model_config.num_hidden_layers
        self.kv_cache_dtype = self.token_to_kv_pool.get_key_buffer(0).dtype
        self.k_buffers: List[torch.Tensor] = [  # expect: KVP001
            self.token_to_kv_pool.get_key_buffer(i) for i in range(num_layers)
        ]
        self.v_buffers = list(map(self.token_to_kv_pool.get_value_buffer, range(num_layers)))  # expect: KVP001


class BoundMethodAttnBackend(FlashInferAttnBackend):
    def __init__(self, model_runner, skip_prefill=False):
        super().__init__(model_runner, skip_prefill=skip_prefill)
        kv_pool = model_runner.token_to_kv_pool
        self._translate_loc = kv_pool.translate_loc_from_full_to_swa  # expect: KVP001
        self._write_kv = kv_pool.set_kv_buffer  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = self._translate_loc(forward_batch.out_cache_loc)
        self._write_kv(layer, loc, k, v)
        return q


class LayersMappingAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        mapping = model_runner.token_to_kv_pool.layers_mapping
        self.swa_layer_ids = sorted(lid for lid, (_, is_swa) in mapping.items() if is_swa)  # expect: KVP001
        self.local_layer_id = {lid: idx for lid, (idx, _) in mapping.items()}  # expect: KVP001


class AllocatorPoolAttnBackend(AttentionBackend):
    """The allocator's pool is the target's: an EAGLE draft that owns a full pool reads another."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
        self.target_pool = self.token_to_kv_pool_allocator.get_kvcache()  # expect: KVP001


class PerLayerPoolsAttnBackend(AttentionBackend):
    """A dict of per-layer sub-pools and a weak reference: both pin the init-time pool."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.layer_pools = {  # expect: KVP001
            layer_id: pool.swa_kv_pool if is_swa else pool.full_kv_pool
            for layer_id, (_, is_swa) in pool.layers_mapping.items()
        }
        self._pool_ref = weakref.ref(pool)  # expect: KVP001
