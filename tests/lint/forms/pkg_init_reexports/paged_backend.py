import torch

from pkg_init_reexports import pages_needed, pool_is_windowed, window_pool
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ReexportPagedAttnBackend(AttentionBackend):
    """Probes imported from the package itself, whose __init__ re-exports them through a
    relative star import of a module that star-imports their home."""

    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self.max_pages = pages_needed(model_runner.model_config.context_len, self.page_size)
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.windowed = pool_is_windowed(model_runner.token_to_kv_pool)  # expect: KVP002
        self.window_kv = window_pool(self.token_to_kv_pool)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        self.pages = torch.div(forward_batch.seq_lens, self.page_size, rounding_mode="ceil")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.windowed:  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        pool = self.window_kv or forward_batch.token_to_kv_pool  # expect: KVP003
        return pool.get_key_buffer(layer.layer_id)[loc]
