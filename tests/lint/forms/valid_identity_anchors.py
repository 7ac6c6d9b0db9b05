"""Correct look-alikes: a pool held without being used as one.

The backing field of a ``token_to_kv_pool`` property is the swap point under another name (the
setter is what the swap calls). A pool, or a weakref to it, kept only to be compared by identity
with the live pool is how a backend notices the swap: that comparison reads the live pool.
"""
from __future__ import annotations

import logging
import weakref

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

logger = logging.getLogger(__name__)


class ForwardingWrapperBackend(AttentionBackend):
    def __init__(self, model_runner, prefill_backend, decode_backend):
        super().__init__()
        self.prefill_backend = prefill_backend
        self.decode_backend = decode_backend
        self._active = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._active

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._active = pool
        self.prefill_backend.token_to_kv_pool = pool
        self.decode_backend.token_to_kv_pool = pool


class BuiltWithBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._built_with = model_runner.token_to_kv_pool
        self._first = weakref.ref(model_runner.token_to_kv_pool)

    @property
    def swapped(self) -> bool:
        return self.token_to_kv_pool is not self._built_with

    def init_forward_metadata(self, forward_batch):
        first = self._first()
        if first is not self.token_to_kv_pool:
            logger.debug("serving a pool other than the one this backend was built with")
        if self.token_to_kv_pool is self._built_with:
            forward_batch.own_pool = True
