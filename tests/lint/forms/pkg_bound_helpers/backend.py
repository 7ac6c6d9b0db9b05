import enum
import functools

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

from . import probes, shim

# helpers bound by assignment, not by def or import: whatever the name says, a call of it is a
# call of what it is bound to
_paged = probes.is_windowed
_paged_again = _paged
_layout_probe = staticmethod(probes.is_windowed)
impl = shim.impl  # a module, bound through another module


def _split_pages(pool, strict: bool = False) -> bool:
    if strict:
        return isinstance(pool, SWAKVPool)
    return hasattr(pool, "full_to_swa_index_mapping")


_strict_split = functools.partial(_split_pages, strict=True)

if hasattr(probes, "window_pool_or_none"):
    _window_view = probes.window_pool_or_none
else:  # a fallback no run takes: either binding may be the one called

    def _window_view(pool):
        return None


class _Layout(enum.Enum):
    DENSE = "dense"
    WINDOWED = "windowed"


class BoundProbeBackend(AttentionBackend):
    """Verdicts made once through names bound to pool tests by assignment."""

    probe = staticmethod(probes.is_windowed)  # a class attribute: self.probe(pool) calls it
    PROBE_NAME = "is_windowed"

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        self.read_mode = "windowed" if _paged(pool) else "dense"  # expect: KVP002
        self.split = _paged_again(pool)  # expect: KVP002
        self.layout = _Layout.WINDOWED if _layout_probe(pool) else _Layout.DENSE  # expect: KVP002
        self.hybrid = _strict_split(pool)  # expect: KVP002
        self.view = _window_view(pool)  # expect: KVP001
        self.through_shim = impl.is_windowed(pool)  # expect: KVP002
        self.by_class = self.probe(pool)  # expect: KVP002
        self.by_name = getattr(probes, self.PROBE_NAME)(pool)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q
