from types import SimpleNamespace

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import setup_helpers as setup
from .setup_helpers import keep_mapping, mark_windowed, page_rows


def keep_swa_side(backend, pool):
    backend.swa_side = pool.swa_kv_pool  # expect: KVP001


class HandingBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.layout = SimpleNamespace(windowed=False)
        setup.attach_swa_pool(self)  # expect: KVP001
        mark_windowed(self, model_runner.token_to_kv_pool)  # expect: KVP002
        keep_mapping(self, self.token_to_kv_pool)  # expect: KVP001
        keep_swa_side(self, self.token_to_kv_pool)
        setup.bind_main_mapping(self, self.token_to_kv_pool)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if setup.windowed(self):  # expect: KVP003
            q = q * layer.scaling
        rows = page_rows(self, forward_batch.out_cache_loc)  # expect: KVP003
        return q, rows
