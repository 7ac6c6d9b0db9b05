from pkg_valid_quiet_mixin.planning import PagingMixin


class PagedPlanAttnBackend(PagingMixin, AttentionBackend):
    """The mixin's flag is geometry here: the pool is read per forward, never kept."""

    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self.hybrid = model_runner.page_size > 1

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        pages = self.plan_pages(layer, forward_batch.seq_lens)
        return pool.get_key_buffer(layer.layer_id), pages
