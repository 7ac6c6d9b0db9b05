"""Pool facts packed into a value by a call (factories, closure makers, generators), and
lists picked by a filter on the pool's type: the value is kept, the decisions read it."""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

PoolInfo = namedtuple("PoolInfo", "is_swa mapping")


@dataclass
class Snapshot:
    windowed: bool
    sub: object = None

    @staticmethod
    def build(pool):
        swa = getattr(pool, "swa_kv_pool", None)
        return Snapshot(windowed=swa is not None, sub=swa)


def info_of(pool):
    return PoolInfo(isinstance(pool, SWAKVPool), getattr(pool, "full_to_swa_index_mapping", None))


def _halves(pool):
    if isinstance(pool, SWAKVPool):
        yield from (pool.swa_kv_pool, pool.full_kv_pool)


def make_writer(src):
    def write(loc):
        return src.translate_loc_from_full_to_swa(loc)
    return write


class PackedStateAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        snap = Snapshot.build(pool)
        self.snap = snap  # expect: KVP001
        self.info = info_of(model_runner.token_to_kv_pool)  # expect: KVP001
        self.halves = tuple(_halves(pool))  # expect: KVP001
        self.write = make_writer(pool)  # expect: KVP001

        def reader(*, src, layer=0):
            return lambda: src.get_key_buffer(layer)
        self.read_keys = reader(src=pool, layer=1)  # expect: KVP001
        self.kinds = set(self._iter_kinds(pool))  # expect: KVP001

    def _iter_kinds(self, pool):
        if isinstance(pool, SWAKVPool):
            yield "swa"
        yield "full"

    def init_forward_metadata(self, forward_batch):
        if self.snap.windowed:  # expect: KVP003
            forward_batch.windowed = True
        assert not self.info.is_swa or forward_batch.out_cache_loc is not None  # expect: KVP003
        if "swa" in self.kinds:  # expect: KVP003
            forward_batch.kinds = 2


class FilteredLayersAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        windows = {i: model_runner.sliding_window_size for i in range(8)}
        self.is_swa = hasattr(pool, "swa_kv_pool")  # expect: KVP002
        self.win = {i: w for i, w in windows.items() if hasattr(pool, "swa_kv_pool")}  # expect: KVP001
        self.swa_layers = frozenset(  # expect: KVP001
            i for i in range(8) if isinstance(model_runner.token_to_kv_pool, SWAKVPool)
        )
        self.flagged = [i for i in range(8) if self.is_swa]  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        if layer.layer_id in self.win:  # expect: KVP003
            q = q * 2
        if layer.layer_id not in self.swa_layers:  # expect: KVP003
            return q
        return k if layer.layer_id in self.flagged else v  # expect: KVP003
