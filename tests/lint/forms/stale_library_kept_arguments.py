# A helper whose constructor hands what it is given to a method it inherits from a library base
# (nn.Module.register_buffer keeps the tensor on the module): the module holds the init-time
# pool's mapping, so the backend keeps it.
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from torch import nn


class _SlotIndex(nn.Module):
    def __init__(self, full_to_swa):
        super().__init__()
        self.register_buffer("full_to_swa", full_to_swa, persistent=False)

    def forward(self, loc):
        return self.full_to_swa[loc]


class ModuleBufferBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.slot_index = _SlotIndex(pool.full_to_swa_index_mapping)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        return self.slot_index(forward_batch.out_cache_loc)
