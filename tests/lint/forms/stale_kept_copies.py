"""Per-forward copies of a template kept since __init__: a copy holds what the template held, so a
decision on its flag is a decision on the stale flag (wave_swa's ``replace(self._meta, ...)``)."""
from __future__ import annotations

import copy
from dataclasses import dataclass

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass
class WindowMeta:
    use_swa: bool = False
    window: int = -1


class TemplateCopyAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
        self._meta = WindowMeta(use_swa=swa, window=model_runner.sliding_window_size)  # expect: KVP001
        self._opts = {"swa": swa, "window": model_runner.sliding_window_size}  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        md = self._meta
        if md.use_swa:  # expect: KVP003
            forward_batch.swa = True
        opts = dict(self._opts)
        if opts["swa"]:  # expect: KVP003
            forward_batch.swa = True
        again = self._opts.copy()
        if again.get("swa", False):  # expect: KVP003
            forward_batch.swa = True
        spread = {**self._opts}
        if spread["swa"] and md.window > 0:  # expect: KVP003
            forward_batch.swa = True
        deep = copy.deepcopy(self._opts)
        forward_batch.swa = True if deep["swa"] else False  # expect: KVP003
