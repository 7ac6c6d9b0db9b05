from dataclasses import dataclass
from typing import Any, Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


@dataclass
class WindowMeta:
    enabled: bool = False
    store: Optional[Any] = None


def prime(meta, pool):
    window = getattr(pool, "swa_kv_pool", None)
    meta.enabled = window is not None
    meta.store = window


class PrimedBackend(AttentionBackend):
    """A helper fills an object the backend keeps, handed to it in __init__: what it stores
    there is the backend's, kept past every swap."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.meta = WindowMeta()
        prime(self.meta, self.token_to_kv_pool)  # expect: KVP001,KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.meta.enabled:  # expect: KVP003
            return self.meta.store.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
