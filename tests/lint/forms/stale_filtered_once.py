"""A collection filtered by a pool verdict in ``__init__`` is that verdict: whether it is empty,
and which members it holds, were decided for the pool the backend was built with. A property
filtering the same way asks the live pool at every read."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class FilteredOnceAttnBackend(AttentionBackend):
    def __init__(self, model_runner, hooks):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        layers = range(model_runner.model_config.num_hidden_layers)
        self.window_hooks = [h for h in hooks if hasattr(self.token_to_kv_pool, "swa_kv_pool")]  # expect: KVP001
        self.translated = {i for i in layers if isinstance(self.token_to_kv_pool, SWAKVPool)}  # expect: KVP001
        self.even_layers = [i for i in layers if i % 2 == 0]

    def init_forward_metadata(self, forward_batch):
        if not self.window_hooks:  # expect: KVP003
            return forward_batch.out_cache_loc
        return [hook(forward_batch) for hook in self.window_hooks if self.even_layers]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q, bool(self.translated) and layer.sliding_window_size > 0  # expect: KVP003


class FilteredLiveAttnBackend(AttentionBackend):
    def __init__(self, model_runner, hooks):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.hooks = list(hooks)

    @property
    def window_hooks(self):
        return [h for h in self.hooks if hasattr(self.token_to_kv_pool, "swa_kv_pool")]

    def init_forward_metadata(self, forward_batch):
        if not self.window_hooks:
            return forward_batch.out_cache_loc
        live = [h for h in self.hooks if isinstance(self.token_to_kv_pool, SWAKVPool)]
        return [hook(forward_batch) for hook in live]
