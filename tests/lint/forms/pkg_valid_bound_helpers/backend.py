import functools

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import probes

# the same kinds of bindings, each asked of the live pool, of geometry or of the resolver
_paged = probes.is_windowed
_swa_geometry = probes.window_of  # an SWA-named alias of a geometry helper
_resolve = staticmethod(probes.resolve_swa_kv_pool)
_strict_paged = functools.partial(probes.is_windowed)


class BoundLiveBackend(AttentionBackend):
    """Bound helpers asked per forward, of geometry, or of the allocator through the resolver."""

    probe = staticmethod(probes.is_windowed)
    GEOMETRY = "window_of"

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.window = _swa_geometry(model_runner)
        self.window_again = getattr(probes, self.GEOMETRY)(model_runner)
        self._swa_kv_pool = _resolve(model_runner)

    @property
    def paged(self) -> bool:
        return _paged(self.token_to_kv_pool)

    def init_forward_metadata(self, forward_batch):
        self.read_mode = "windowed" if _strict_paged(self.token_to_kv_pool) else "dense"
        self.live_split = self.probe(self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.paged and self._swa_kv_pool is not None:
            return q
        return k
