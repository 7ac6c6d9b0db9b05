from functools import reduce

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

_WINDOW_PARTS = ("swa_kv_pool", "full_to_swa_index_mapping")


class ProbeChainBackend(AttentionBackend):
    """Duck probes spelled as map/filter/reduce and comprehensions over constant names."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        self.parts = [getattr(pool, n, None) for n in _WINDOW_PARTS]  # expect: KVP001
        found = list(filter(None, map(lambda n: getattr(pool, n, None), _WINDOW_PARTS)))
        self.capable = reduce(lambda acc, x: acc and x is not None, found, True)  # expect: KVP002
        self.complete = all(hasattr(pool, n) for n in _WINDOW_PARTS)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q


def _window_part(pool):
    return getattr(pool, "swa_kv_pool", None)


class FirstFoundBackend(AttentionBackend):
    """An element drawn from an iterator (``next``), and map/reduce of named functions."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        found = filter(None, (getattr(pool, n, None) for n in _WINDOW_PARTS))
        self.window = next(iter(found), None)  # expect: KVP001
        self.walked = reduce(getattr, ("swa_kv_pool",), pool)  # expect: KVP001
        self.parts = next(map(_window_part, [pool]))  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window is not None:  # expect: KVP003
            return q
        return k


class PushdownWrapper(AttentionBackend):
    """A wrapper pushing a verdict it made once into each inner backend it holds."""

    def __init__(self, model_runner, make_inner):
        super().__init__()
        self.prefill = make_inner(model_runner)
        self.decode = make_inner(model_runner)
        windowed = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
        for inner in (self.prefill, self.decode):
            setattr(inner, "translate_window", windowed)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.decode.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class RunnerPropertyBackend(AttentionBackend):
    """A property read per forward that asks the runner, whose pool FROZEN_KV never swaps."""

    def __init__(self, model_runner):
        super().__init__()
        self.model_runner = model_runner

    @property
    def kv_pool(self):
        return self.model_runner.token_to_kv_pool  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        pool = self.kv_pool
        if isinstance(pool, SWAKVPool):
            self.loc = pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
