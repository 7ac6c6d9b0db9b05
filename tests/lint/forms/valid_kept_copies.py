"""Correct look-alikes of per-forward copies of a kept template: geometry read off the copy, the
flag field replaced by a test of the pool read now, a copy of a template holding only geometry."""
from __future__ import annotations

from dataclasses import dataclass, replace

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass
class WindowMeta:
    use_swa: bool = False
    window: int = -1


class LiveCopyAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._geometry = WindowMeta(window=model_runner.sliding_window_size)
        self._shape = {"window": model_runner.sliding_window_size, "heads": 8}

    def init_forward_metadata(self, forward_batch):
        md = self._geometry
        if md.window > 0:
            forward_batch.window = md.window
        live = replace(self._geometry, use_swa=isinstance(self.token_to_kv_pool, SWAKVPool))
        if live.use_swa and live.window > 0:
            forward_batch.swa = True
        shape = dict(self._shape)
        if shape["window"] > 0 and shape.get("heads"):
            forward_batch.heads = shape["heads"]
        now = {**self._shape, "swa": isinstance(self.token_to_kv_pool, SWAKVPool)}
        if now["swa"]:
            forward_batch.swa = True
