"""A record kept as ``given or Settings.of(runner)`` (or picked by a ternary) holds the fields
of each record it may be: the factory's verdict on the pool and the capacity it read are kept
fields, so a gate on ``self.settings.<field>`` (here or in a subclass handed a sibling's
settings) or on a copy of one decides on them. A truth test of the record itself (the ``or``)
decides nothing about the pool."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


@dataclass(frozen=True)
class PoolSettings:
    windowed: bool
    window_tokens: int
    page: int

    @classmethod
    def of(cls, runner) -> "PoolSettings":
        pool = runner.token_to_kv_pool
        return cls(windowed=hasattr(pool, "swa_kv_pool"),
                   window_tokens=pool.size_swa if isinstance(pool, SWAKVPool) else 0,
                   page=runner.page_size)


class FallbackSettingsAttnBackend(AttentionBackend):
    def __init__(self, model_runner, settings: Optional[PoolSettings] = None):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.settings = settings or PoolSettings.of(model_runner)  # expect: KVP001
        self.limit = self.settings.window_tokens  # expect: KVP001
        self.picked = settings if settings is not None else PoolSettings.of(model_runner)  # expect: KVP001

    def shared(self) -> PoolSettings:
        return self.settings

    def init_forward_metadata(self, forward_batch):
        if self.settings.windowed:  # expect: KVP003
            forward_batch.windowed = True
        if forward_batch.out_cache_loc.numel() >= self.limit > 0:  # expect: KVP003
            forward_batch.overflow = True
        forward_batch.picked = 1 if self.picked.windowed else 0  # expect: KVP003


class FallbackSettingsDraftAttnBackend(FallbackSettingsAttnBackend):
    def __init__(self, model_runner, target: FallbackSettingsAttnBackend):
        super().__init__(model_runner, settings=target.shared())

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return k if not self.settings.windowed else v  # expect: KVP003
