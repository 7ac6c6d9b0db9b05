"""Correct look-alikes of a loop over constant names: geometry copied reflectively, a pool's
parts read per forward."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_GEOMETRY = ("page_size", "head_num", "head_dim")


class NamedLoopLookalikeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        for name in _GEOMETRY:
            setattr(self, f"_{name}", getattr(model_runner.token_to_kv_pool, name, None))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        for part in ("swa_kv_pool", "full_kv_pool"):
            sub = getattr(self.token_to_kv_pool, part, None)
            if sub is not None:
                return sub.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id) * self._page_size
