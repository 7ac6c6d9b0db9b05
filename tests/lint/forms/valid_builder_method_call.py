from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ConfiguredGeometryBackend(AttentionBackend):
    """Configured after construction with geometry only; the mapping is read per forward."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._page = 1

    def configure(self, page_size):
        self._page = page_size

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        mapping = getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None)
        self.win_loc = loc if mapping is None else mapping[loc]


def build_configured(model_runner):
    backend = ConfiguredGeometryBackend(model_runner)
    backend.configure(model_runner.page_size)
    return backend
