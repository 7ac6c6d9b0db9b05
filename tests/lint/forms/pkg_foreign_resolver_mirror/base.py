from pkg_foreign_resolver_mirror import resolving
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ResolvedWindowAttnBackend(AttentionBackend):
    """The pool comes from a resolver of another module that asks the allocator: the flag
    mirrors it (KVP004, opt-in, asks for the pool itself), and gates on the mirror are as
    sound as gates on the pool: no KVP003."""

    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self._swa_kv_pool = resolving.pick_window_pool(model_runner)
        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None  # expect: KVP004

    def _loc(self, loc):
        if self.use_sliding_window_kv_pool:
            return self._swa_kv_pool.translate_loc_from_full_to_swa(loc)
        return loc

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = self._loc(forward_batch.out_cache_loc)
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]
