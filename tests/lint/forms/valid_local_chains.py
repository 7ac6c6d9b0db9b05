"""Correct look-alikes of pool state unwrapped through locals: the chain starts at the pool read
this forward, or at geometry kept beside a pool, so nothing a decision tests was kept past a
swap."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LiveChainAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.layout = {"page": model_runner.page_size, "heads": model_runner.model_config.num_attention_heads}

    def init_forward_metadata(self, forward_batch):
        holder = self.token_to_kv_pool
        main = holder.main_pool if hasattr(holder, "main_pool") else holder
        if main is not None:
            forward_batch.main = main
        same = holder
        window = getattr(same, "swa_kv_pool", None)
        forward_batch.window = window if window else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        layout = self.layout
        page = layout["page"]
        if page > 1:
            return q
        size = self.page_size
        pages = size * 2
        return k if pages else v
