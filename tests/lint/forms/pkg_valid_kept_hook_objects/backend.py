import functools

from pkg_valid_kept_hook_objects.hooks import StepHooks, Tally
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LiveHookedAttnBackend(AttentionBackend):
    """Hook objects handed bound methods that read the live pool, geometry, an object that
    keeps nothing of what it is handed, and the pool of each forward, per forward."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        window = model_runner.sliding_window_size
        self.hooks = StepHooks()
        self.tally = Tally()
        self.hooks.register("evict", self._evict_live)
        self.hooks.register("clip", functools.partial(self._clip, window=window))
        self.hooks.remember("window", window)
        self.tally.register("swa", getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None))

    def init_forward_metadata(self, forward_batch):
        self.hooks.remember("pool", self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.hooks.fire("evict", forward_batch)
        self.hooks.fire("clip", forward_batch)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]

    def _evict_live(self, forward_batch):
        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

    def _clip(self, forward_batch, window=None):
        if window is not None:
            forward_batch.seq_lens.clamp_(max=window)
