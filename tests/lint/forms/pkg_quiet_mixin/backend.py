from pkg_quiet_mixin.planning import PlanMixin


class PlannedAttnBackend(PlanMixin, AttentionBackend):
    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self.hybrid = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.plan_pages(layer, forward_batch.seq_lens)
