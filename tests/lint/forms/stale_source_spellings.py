"""Backends that read the active pool in spellings other than ``model_runner.token_to_kv_pool``."""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

if TYPE_CHECKING:
    from sglang.srt.model_executor.model_runner import ModelRunner

_POOL_OF = operator.attrgetter("token_to_kv_pool")


class GetattrPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner: ModelRunner):
        super().__init__()
        self.device = model_runner.device
        self.page_size = model_runner.page_size
        # getattr with a literal name is the same read as the attribute
        pool = getattr(model_runner, "token_to_kv_pool", None)
        self.kv_pool = pool  # expect: KVP001
        self.num_head = model_runner.model_config.num_attention_heads

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.kv_pool.get_key_buffer(layer.layer_id)


class AttrgetterPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner: ModelRunner):
        super().__init__()
        self.swa_pool = _POOL_OF(model_runner).swa_kv_pool  # expect: KVP001
        fetch = operator.attrgetter("token_to_kv_pool.full_to_swa_index_mapping")
        self.full_to_swa = fetch(model_runner)  # expect: KVP001


class VarsPoolAttnBackend(AttentionBackend):
    def __init__(self, model_runner: ModelRunner):
        super().__init__()
        runner_state = vars(model_runner)
        self.cached_pool = runner_state["token_to_kv_pool"]  # expect: KVP001
        active = model_runner.__dict__["token_to_kv_pool"]
        self.translate = active.translate_loc_from_full_to_swa  # expect: KVP001


class SelfDictPoolAttnBackend(AttentionBackend):
    """The swap point is fine; reading it back through ``__dict__`` in a helper is not."""

    def __init__(self, model_runner: ModelRunner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.max_context_len = model_runner.model_config.context_len
        self._setup_swa()

    def _setup_swa(self):
        pool = self.__dict__["token_to_kv_pool"]
        self._swa_layers_mapping = pool.layers_mapping  # expect: KVP001


class RunnerAttributeAttnBackend(AttentionBackend):
    """The runner kept on the backend and read per forward: the swap never touches it."""

    def __init__(self, model_runner: ModelRunner):
        super().__init__()
        self.model_runner = model_runner
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.model_runner.token_to_kv_pool  # expect: KVP001
        loc = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        return torch.ops.sglang.swa_extend(q, k, v, loc)


class RenamedRunnerAttnBackend(AttentionBackend):
    """The runner under another parameter name."""

    def __init__(self, runner, skip_prefill: bool = False):
        super().__init__()
        self.skip_prefill = skip_prefill
        kv = runner.token_to_kv_pool
        swa: Optional[SWAKVPool] = kv if isinstance(kv, SWAKVPool) else None
        self._swa_kv_pool = swa  # expect: KVP001
