from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class StepBackend(AttentionBackend):
    def __init__(self, model_runner, step):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.step = step

    def init_forward_metadata(self, forward_batch):
        if self.windowed:  # expect: KVP003
            self.loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.loc)


class MultiStepDraftWrapper:
    """Not a backend itself: it builds one per draft step and decides for all of them once."""

    def __init__(self, model_runner, steps):
        windowed = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
        self.backends = []
        for step in range(steps):
            backend = StepBackend(model_runner, step)
            backend.windowed = windowed  # expect: KVP002
            self.backends.append(backend)
        self.steps = steps
