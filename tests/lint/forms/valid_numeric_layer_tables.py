# Numbers kept from a pool that every pool of the model reports alike (its page size, head
# count) and per-layer tables of the model's own geometry, in an array or as int()s.
from array import array

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class NumericGeometryBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = int(model_runner.token_to_kv_pool.page_size)
        windows = model_runner.model_config.sliding_window_layers or ()
        self.window_layers = array("b", (int(i in windows) for i in range(4)))
        self.head_num = int(model_runner.token_to_kv_pool.head_num)
