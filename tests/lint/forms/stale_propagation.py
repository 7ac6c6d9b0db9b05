"""Pool-derived values reaching ``self`` through every kind of data and control path."""
from __future__ import annotations

import dataclasses
import functools
from collections import namedtuple
from typing import Callable, Optional

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

SwaLayout = namedtuple("SwaLayout", ["pool", "mapping"])


@dataclasses.dataclass
class SwaTranslateState:
    translate: Optional[Callable] = None
    window: int = -1


class AliasChainAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        a = model_runner.token_to_kv_pool
        b = a
        c, window = b, model_runner.sliding_window_size
        self.window = window
        self.pool_copy = c  # expect: KVP001
        first, (second, third) = 0, (c.swa_kv_pool, c.full_kv_pool)
        self.swa_half = second  # expect: KVP001


class WalrusAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        if (mapping := model_runner.token_to_kv_pool.full_to_swa_index_mapping) is not None:
            self.mapping = mapping  # expect: KVP001


class ContainerAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        pools = {"swa": pool.swa_kv_pool, "full": pool.full_kv_pool}
        self.pools_by_kind = pools  # expect: KVP001
        self.layouts = [SwaLayout(pool, pool.full_to_swa_index_mapping)]  # expect: KVP001
        self.state = SwaTranslateState(translate=pool.translate_loc_from_full_to_swa)  # expect: KVP001
        self.wrapped = functools.partial(pool.translate_loc_from_full_to_swa)  # expect: KVP001


class ClosureAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        swa_pool = model_runner.token_to_kv_pool

        def to_swa(loc):
            return swa_pool.translate_loc_from_full_to_swa(loc)

        self.to_swa = to_swa  # expect: KVP001
        self.to_swa_fast = lambda loc: swa_pool.full_to_swa_index_mapping[loc]  # expect: KVP001


class SetattrAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        setattr(self, "swa_kv_view", pool.swa_kv_pool)  # expect: KVP001
        self.__dict__.update(full_to_swa=pool.full_to_swa_index_mapping)  # expect: KVP001
        vars(self)["swa_translate"] = pool.translate_loc_from_full_to_swa  # expect: KVP001


class HelperCallAttnBackend(AttentionBackend):
    """The value comes back from a same-class helper, and from a plain function of the module."""

    def __init__(self, model_runner):
        super().__init__()
        self._window_pool = self._pick_window_pool(model_runner)  # expect: KVP001
        self._swa_map = _swa_mapping_of(model_runner.token_to_kv_pool)  # expect: KVP001

    def _pick_window_pool(self, model_runner):
        pool = model_runner.token_to_kv_pool
        return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


def _swa_mapping_of(pool):
    return getattr(pool, "full_to_swa_index_mapping", None)


class ControlDependenceAttnBackend(AttentionBackend):
    """Constants chosen under decisions that test the pool carry the test."""

    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        try:
            pool.translate_loc_from_full_to_swa
        except AttributeError:
            self.translate_needed = False  # expect: KVP002
        else:
            self.translate_needed = True  # expect: KVP002
        self.kv_layout = "swa" if isinstance(pool, SWAKVPool) else "full"  # expect: KVP002
        for _, (_, is_swa) in pool.layers_mapping.items():
            if is_swa:
                self.has_window_layers = True  # expect: KVP002
                break

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.kv_layout == "swa":  # expect: KVP003
            return self._swa_decode(q, k, v, layer, forward_batch)
        return self._full_decode(q, k, v, layer, forward_batch)
