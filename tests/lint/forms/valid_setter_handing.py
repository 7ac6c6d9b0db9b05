"""Look-alikes of stale_setter_handing.py: wrappers whose token_to_kv_pool setter hands the
swapped pool to every inner backend they keep, however it reaches them (a loop over a tuple of
them, a dict's values, setattr, a method of the inner called with it, a helper method of the
wrapper, a copy of the new pool kept on self first, an inner bound through a local, a store
into the inner's __dict__, inners built in a loop and appended through a local)."""
from __future__ import annotations

from typing import Dict

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PairLoopSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, prefill_backend: AttentionBackend, decode_backend: AttentionBackend):
        self.prefill_backend = prefill_backend
        self.decode_backend = decode_backend
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        for inner in (self.prefill_backend, self.decode_backend):
            inner.token_to_kv_pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.prefill_backend.forward_extend(q, k, v, layer, forward_batch, save_kv_cache)


class RoutesSetattrSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, decode_backend: AttentionBackend, extend_backend: AttentionBackend):
        self.routes: Dict[str, AttentionBackend] = {"decode": decode_backend, "extend": extend_backend}
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        for _, backend in self.routes.items():
            setattr(backend, "token_to_kv_pool", pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.routes["decode"].forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class InnerMethodSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, decode_backend: AttentionBackend):
        self.decode_backend = decode_backend
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        self.decode_backend.use_kv_pool(pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class HelperMethodSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, decode_backend: AttentionBackend, verify_backend: AttentionBackend):
        self.decode_backend = decode_backend
        self.verifier = verify_backend
        self._kv = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._kv

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, kv):
        self._kv = kv
        self._hand_on()

    def _hand_on(self):
        for inner in (self.decode_backend, self.verifier):
            inner.token_to_kv_pool = self._kv

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        self.verifier.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class LocalInnerSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, decode_backend: AttentionBackend = None):
        chosen = decode_backend if decode_backend is not None else model_runner.attn_backend
        self.inner = chosen
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        self.inner.token_to_kv_pool = self._pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.inner.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class LeafAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


class BuiltLeavesSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, num_steps: int):
        self.leaves = []
        for _ in range(num_steps):
            leaf = LeafAttnBackend(model_runner)
            self.leaves.append(leaf)
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        for leaf in self.leaves:
            leaf.token_to_kv_pool = self.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.leaves[0].forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class DictStoreSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner, decode_backend: AttentionBackend):
        self.decode_backend = decode_backend
        self._pool = model_runner.token_to_kv_pool

    @property
    def token_to_kv_pool(self):
        return self._pool

    @token_to_kv_pool.setter
    def token_to_kv_pool(self, pool):
        self._pool = pool
        self.decode_backend.__dict__["token_to_kv_pool"] = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return self.decode_backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
