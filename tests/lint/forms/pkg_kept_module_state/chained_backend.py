from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .bootstrap import prepare
from .window_registry import translator


class ChainedRegistryAttnBackend(AttentionBackend):
    """Publishes through a start-up step of a third module; reads back through the registry."""

    def __init__(self, model_runner):
        super().__init__()
        prepare(model_runner.token_to_kv_pool)  # expect: KVP001,KVP002

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        translate = translator()
        if translate:  # expect: KVP003
            return translate(forward_batch.out_cache_loc)
        return forward_batch.out_cache_loc
