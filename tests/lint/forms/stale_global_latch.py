from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_TO_WINDOW = None


def configure(pool):
    """Filled on the first call only: what it keeps is that call's pool's."""
    global _TO_WINDOW
    if _TO_WINDOW is not None:
        return
    _TO_WINDOW = getattr(pool, "translate_loc_from_full_to_swa", None)  # expect: KVP001


class LatchedBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        configure(self.token_to_kv_pool)
        self.loc = forward_batch.out_cache_loc
