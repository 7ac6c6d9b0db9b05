from pkg_foreign_resolver_mirror.base import ResolvedWindowAttnBackend


class ResolvedWindowRaggedBackend(ResolvedWindowAttnBackend):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        if self._swa_kv_pool is not None:
            self.full_to_swa = self._swa_kv_pool.full_to_swa_index_mapping
        else:
            self.full_to_swa = None

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        window = layer.sliding_window_size if self.use_sliding_window_kv_pool else -1
        if self.full_to_swa is not None:
            return self.full_to_swa[forward_batch.out_cache_loc], window
        return forward_batch.out_cache_loc, window
