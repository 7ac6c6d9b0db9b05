"""Wrappers with a token_to_kv_pool setter that does not hand the swapped pool to every inner
backend it keeps. FROZEN_KV MTP rebinds the wrapper's token_to_kv_pool per forward: the setter
runs, and an inner it never gives the new pool keeps reading the pool it was built with. A setter
counts for the inners it hands the pool to, not for the class. Two inners of which the setter
hands the pool to one is KVP001's INVALID HalfHandedBackend (not repeated here)."""
from __future__ import annotations

from typing import Dict, List

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class OwnOnlySetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, decode_backend: AttentionBackend):
        self.decode_backend = decode_backend  # expect: KVP001
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool  # kept on the wrapper only

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class MetadataSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, metadata, inner_backend: AttentionBackend):
        self.metadata = metadata
        self.inner_backend = inner_backend  # expect: KVP001
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, new_pool):
        self._pool = new_pool
        self.metadata.token_to_kv_pool = new_pool  # another object, not the inner backend

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.inner_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class SideListSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, main_backend: AttentionBackend, side_backends: List[AttentionBackend]):
        self.main_backend = main_backend  # expect: KVP001
        self.side_backends = side_backends
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        for side in self.side_backends:  # the loop misses the main backend
            side.token_to_kv_pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.main_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class InitialPoolSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, decode_backend: AttentionBackend):
        self.decode_backend = decode_backend  # expect: KVP001
        self._pool = model_runner.token_to_kv_pool
        self._runner = model_runner

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        self.decode_backend.token_to_kv_pool = self._runner.token_to_kv_pool  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class RoutesSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, decode_backend: AttentionBackend, verify_backend: AttentionBackend):
        self.routes: Dict[str, AttentionBackend] = {"decode": decode_backend}
        self.verifier = verify_backend  # expect: KVP001
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        self._rebind(pool)

    def _rebind(self, pool):
        for backend in self.routes.values():
            backend.token_to_kv_pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.verifier.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return self.routes["decode"].forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class LeafAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


class BuiltLeavesSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.draft_leaf = LeafAttnBackend(model_runner)
        self.target_leaf = LeafAttnBackend(model_runner)  # expect: KVP001
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        self.draft_leaf.token_to_kv_pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.draft_leaf.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return self.target_leaf.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
