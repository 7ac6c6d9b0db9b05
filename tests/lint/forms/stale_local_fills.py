"""Pool state gathered into a local container filled in place (``append``, ``extend``,
``add``, an item assigned) and then kept: the container holds what was put in it, as a list or
dict display of the same values would."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class GatheredAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        buffers = []
        for layer_id in range(model_runner.start_layer, model_runner.end_layer):
            buffers.append(pool.get_key_buffer(layer_id))
        self.key_buffers = buffers  # expect: KVP001
        by_ratio = {}
        for ratio in (4, 128):
            by_ratio[ratio] = pool.get_pool_for_ratio(ratio)
        self.pools_by_ratio = by_ratio  # expect: KVP001
        hooks = []
        if isinstance(pool, SWAKVPool):
            hooks.extend([pool.translate_loc_from_full_to_swa])
        self.write_hooks = tuple(hooks)  # expect: KVP001
        self._first_seen = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._first_seen is None:
            seen = set()
            seen.add(self.token_to_kv_pool.swa_kv_pool)
            self._first_seen = seen  # expect: KVP001
        loc = forward_batch.out_cache_loc
        for hook in self.write_hooks:
            loc = hook(loc)
        return torch.empty_like(q), self.key_buffers[layer.layer_id], self.pools_by_ratio, loc
