from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class StepBackend(AttentionBackend):
    def __init__(self, model_runner, step):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.step = step

    def init_forward_metadata(self, forward_batch):
        if isinstance(self.token_to_kv_pool, SWAKVPool):
            self.loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.loc)


class MultiStepDraftWrapper:
    """Builds one backend per draft step and hands each its step and geometry only."""

    def __init__(self, model_runner, steps):
        self.windowed = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # its own
        self.backends = []
        for step in range(steps):
            backend = StepBackend(model_runner, step)
            backend.page_size = model_runner.page_size
            self.backends.append(backend)
