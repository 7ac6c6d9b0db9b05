from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ConfiguredBackend(AttentionBackend):
    """Configured after construction by the function that builds it: what configure keeps
    from the pool it is handed is fixed for the backend's life."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._loc_map = None

    def configure(self, pool):
        self._loc_map = getattr(pool, "full_to_swa_index_mapping", None)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        self.win_loc = loc if self._loc_map is None else self._loc_map[loc]  # expect: KVP003


def build_configured(model_runner):
    backend = ConfiguredBackend(model_runner)
    backend.configure(backend.token_to_kv_pool)
    return backend
