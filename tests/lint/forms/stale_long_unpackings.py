"""Unpackings of displays longer than a ternary's parts are spelled one by one: each target
keeps what its own element holds. Only the pool read is stale; the geometry and constants
unpacked beside it are not (each of the 18 targets was KVP001 when the whole display was one
value), and a type test after a starred part is what each target may hold (a flag)."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LongUnpackingAttnBackend(AttentionBackend):
    def __init__(self, model_runner, rest):
        super().__init__()
        (self.kv_pool,  # expect: KVP001
         self.page_size, self.num_heads, self.head_dim, self.v_head_dim, self.window,
         self.max_bs, self.max_len, self.device, self.dtype, self.layers, self.scale,
         self.k_scale, self.v_scale, self.chunk, self.split, self.rank, self.world) = (
            model_runner.token_to_kv_pool, model_runner.page_size, 8, 128, 128, 4096,
            160, 8192, "cuda", "bf16", 61, 0.125, 1.0, 1.0, 512, 4, 0, 1)
        (self.first, self.second,  # expect: KVP002
         self.windowed) = *rest, isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.windowed:  # expect: KVP003
            return self.kv_pool.get_key_buffer(layer.layer_id)
        return q
