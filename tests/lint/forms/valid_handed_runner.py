from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def current_window(pool):
    return pool if isinstance(pool, SWAKVPool) else None


def page_of(runner):
    return runner.page_size


class HandedPoolBackend(AttentionBackend):
    """Helpers handed the backend's own pool per forward, or the runner for geometry only."""

    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        window = current_window(self.token_to_kv_pool)
        self.win_loc = window.translate_loc_from_full_to_swa(loc) if window is not None else loc
        self.page = page_of(self.model_runner)
