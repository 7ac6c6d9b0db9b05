from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_TO_WINDOW = None


def configure(pool):
    """Set again on every call, from that call's pool."""
    global _TO_WINDOW
    _TO_WINDOW = getattr(pool, "translate_loc_from_full_to_swa", None)


class RefilledBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        configure(self.token_to_kv_pool)
        self.loc = forward_batch.out_cache_loc
