from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PlannerFillBackend(AttentionBackend):
    """A planner built in __init__, filled once on the first forward through a local naming
    it: what the fill keeps outlives every later swap."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.planner = Planner(model_runner.page_size)

    def init_forward_metadata(self, forward_batch):
        planner = self.planner
        if not planner.primed:
            pool = self.token_to_kv_pool
            planner.window_map = getattr(pool, "full_to_swa_index_mapping", None)  # expect: KVP001
            planner.primed = True
        self.loc = planner.plan(forward_batch.out_cache_loc)
