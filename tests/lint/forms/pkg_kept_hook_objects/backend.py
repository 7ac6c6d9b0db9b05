import functools

from pkg_kept_hook_objects.hooks import StepHooks
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class HookedAttnBackend(AttentionBackend):
    """Pool state handed at construction to a method of a hook object the backend keeps, which
    stores it: the hook object holds it past every swap."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        swa = getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None)
        self.hooks = StepHooks()
        self.hooks.register("evict", functools.partial(self._evict, swa))  # expect: KVP001
        mapping = model_runner.token_to_kv_pool.full_to_swa_index_mapping
        self.hooks.remember("mapping", mapping)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.hooks.fire("evict", forward_batch)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]

    def _evict(self, sub_pool, forward_batch):
        return sub_pool.get_key_buffer(0)
