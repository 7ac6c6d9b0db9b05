"""Window facts published per forward from the batch's pool, and geometry published once."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

SWA_ON = False
_TRANSLATE = None
_GEOMETRY = {}


def publish(kv_pool):
    global SWA_ON, _TRANSLATE
    SWA_ON = isinstance(kv_pool, SWAKVPool)
    _TRANSLATE = kv_pool.translate_loc_from_full_to_swa if SWA_ON else None


def note_geometry(backend):
    _GEOMETRY["page_size"] = backend.page_size
    _GEOMETRY["window"] = backend.model_runner.sliding_window_size


def translator():
    return _TRANSLATE


def page_size():
    return _GEOMETRY.get("page_size", 1)
