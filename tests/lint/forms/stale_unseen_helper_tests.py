# A type-test helper of a module this file alone does not show (flake8 lints one file): its
# name says what it tests, so a verdict it gives on the pool is one; and a dataclass handed the
# pool as an InitVar whose __post_init__ keeps what it read off it.
import dataclasses

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .pool_tests import is_swa_pool


@dataclasses.dataclass(frozen=True)
class DecodePlan:
    page_size: int
    head_dim: int
    source: dataclasses.InitVar[object] = None

    def __post_init__(self, source):
        object.__setattr__(self, "_swa_map", source.full_to_swa_index_mapping)


class UnseenHelperBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.windowed = is_swa_pool(pool)  # expect: KVP002
        self.plan = DecodePlan(16, pool.head_dim, source=pool)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.windowed:  # expect: KVP003
            return q
        return k
