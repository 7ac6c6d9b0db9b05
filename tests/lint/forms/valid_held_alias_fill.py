from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PlannerRefillBackend(AttentionBackend):
    """The planner filled through a local naming it, on every forward, from the pool of that
    forward: nothing outlives the swap."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.planner = Planner(model_runner.page_size)

    def init_forward_metadata(self, forward_batch):
        planner = self.planner
        pool = self.token_to_kv_pool
        planner.window_map = getattr(pool, "full_to_swa_index_mapping", None)
        planner.page_size = pool.page_size
        self.loc = planner.plan(forward_batch.out_cache_loc)
