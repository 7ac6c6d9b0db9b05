"""What the window kernels look up without a backend handle, published once per process."""
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

SWA_ON = False
_TRANSLATE = None
_SUB_POOLS = {}
_ROWS = 0


def publish(kv_pool, rows):
    global SWA_ON, _TRANSLATE, _ROWS
    _ROWS = rows
    SWA_ON = hasattr(kv_pool, "swa_kv_pool")
    _TRANSLATE = kv_pool.translate_loc_from_full_to_swa if SWA_ON else None


def remember_window_half(kv_pool):
    if isinstance(kv_pool, SWAKVPool):
        _SUB_POOLS["window"] = kv_pool.swa_kv_pool


def swa_on():
    return SWA_ON


def translator():
    return _TRANSLATE


def window_half():
    return _SUB_POOLS.get("window")


def rows():
    return _ROWS
