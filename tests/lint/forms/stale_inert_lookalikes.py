"""Gates that bind the swap point again (rel6 FA-2: ``if self.use_swa: self.token_to_kv_pool =
model_runner.token_to_kv_pool``, bound anyway before) decide nothing: whatever the flag says the
backend holds the same, so the gate is no finding (the flag is KVP002's). Their look-alikes do
decide something and keep the gate's finding: the pool bound only under the flag, a copy kept
under another name, a branch that also keeps a buffer."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class InertRebindAttnBackend(AttentionBackend):
    """The flag, an alias of it, a negation with an else: each branch binds the pool again."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.use_sliding_window_kv_pool = isinstance(  # expect: KVP002
            model_runner.token_to_kv_pool, SWAKVPool
        )
        if self.use_sliding_window_kv_pool:
            self.token_to_kv_pool = model_runner.token_to_kv_pool
        has_swa = self.use_sliding_window_kv_pool
        if has_swa:
            self.token_to_kv_pool = getattr(model_runner, "token_to_kv_pool")
        if not self.use_sliding_window_kv_pool:
            pass
        else:
            self.token_to_kv_pool = model_runner.token_to_kv_pool


class DecidingRebindAttnBackend(AttentionBackend):
    """Look-alikes that decide: the only binding of the pool, a copy kept under another name."""

    def __init__(self, model_runner):
        super().__init__()
        self.swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        if self.swa:  # expect: KVP003
            self.token_to_kv_pool = model_runner.token_to_kv_pool
        if self.swa:  # expect: KVP003
            self.kv_pool = model_runner.token_to_kv_pool  # expect: KVP001


class RebindAndKeepAttnBackend(AttentionBackend):
    """The pool bound again beside a buffer made under the flag."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        if self.swa:  # expect: KVP003
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.swa_loc = torch.zeros(64, dtype=torch.int64)
