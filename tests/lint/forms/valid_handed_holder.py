from dataclasses import dataclass
from typing import Any, Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


@dataclass
class WindowMeta:
    enabled: bool = False
    store: Optional[Any] = None
    page_size: int = 1


def prime(meta, pool):
    window = getattr(pool, "swa_kv_pool", None)
    meta.enabled = window is not None
    meta.store = window


def size(meta, runner):
    meta.page_size = runner.page_size


class RePrimedBackend(AttentionBackend):
    """The helper fills per-forward metadata from the pool of that forward; in __init__ it is
    handed geometry only."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.meta = WindowMeta()
        size(self.meta, model_runner)

    def init_forward_metadata(self, forward_batch):
        self.forward_meta = WindowMeta()
        prime(self.forward_meta, self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.forward_meta.enabled:
            return self.forward_meta.store.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
