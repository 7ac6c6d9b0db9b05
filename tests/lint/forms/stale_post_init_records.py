"""A dataclass whose ``__post_init__`` derives fields from the pool it is given (a field or an
``InitVar``): built outside per-forward code, those fields are the verdicts and data of the pool
of that moment, and a decision reading them through the record is stale after the swap."""
from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from typing import Callable, Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass
class _PoolFacts:
    pool: InitVar[object]
    window: int
    windowed: bool = field(init=False)
    rows: Optional[torch.Tensor] = field(init=False, default=None)

    def __post_init__(self, pool):
        self.windowed = isinstance(pool, SWAKVPool) and self.window > 0
        self.rows = getattr(pool, "full_to_swa_index_mapping", None)


@dataclass(frozen=True)
class _FrozenView:
    pool: object
    translate: Optional[Callable] = field(init=False, default=None)

    def __post_init__(self):
        object.__setattr__(self, "translate",
                           getattr(self.pool, "translate_loc_from_full_to_swa", None))


class PostInitRecordAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        window = model_runner.sliding_window_size or 0
        self.facts = _PoolFacts(model_runner.token_to_kv_pool, window)  # expect: KVP001
        self.view = _FrozenView(pool=self.token_to_kv_pool)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.facts.windowed:  # expect: KVP003
            forward_batch.rows = self.facts.rows
        if self.view.translate is not None:  # expect: KVP003
            forward_batch.loc = self.view.translate(forward_batch.out_cache_loc)
