from functools import reduce

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_GEOMETRY = ("page_size", "head_num", "head_dim")


class GeometryChainBackend(AttentionBackend):
    """map/filter/reduce and comprehensions over geometry, and probes made per forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        self.shape = [getattr(pool, n) for n in _GEOMETRY]
        self.sizes = list(map(lambda n: getattr(pool, n), _GEOMETRY))
        self.volume = reduce(lambda acc, x: acc * x, self.sizes, 1)

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        found = list(filter(None, map(lambda n: getattr(pool, n, None), ("swa_kv_pool",))))
        self.loc = forward_batch.out_cache_loc
        if found:
            self.loc = pool.translate_loc_from_full_to_swa(self.loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q


def _page_size(pool):
    return pool.page_size


class FirstFoundGeometryBackend(AttentionBackend):
    """``next`` and map/reduce of named functions over geometry; the element drawn per forward."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = self.token_to_kv_pool
        self.page = next(map(_page_size, [pool]))
        self.dims = reduce(max, map(lambda n: getattr(pool, n), _GEOMETRY[1:]), 0)
        self.first = next(iter(_GEOMETRY), None)

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        window = next(filter(None, (getattr(pool, "swa_kv_pool", None),)), None)
        self.loc = forward_batch.out_cache_loc
        if window is not None:
            self.loc = pool.translate_loc_from_full_to_swa(self.loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q


class PushdownGeometryWrapper(AttentionBackend):
    def __init__(self, model_runner, make_inner):
        super().__init__()
        self.prefill = make_inner(model_runner)
        self.decode = make_inner(model_runner)
        for inner in (self.prefill, self.decode):
            setattr(inner, "page_size", model_runner.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.decode.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)


class LivePropertyBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @property
    def kv_pool(self):
        return self.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        pool = self.kv_pool
        self.loc = forward_batch.out_cache_loc
        if hasattr(pool, "translate_loc_from_full_to_swa"):
            self.loc = pool.translate_loc_from_full_to_swa(self.loc)
