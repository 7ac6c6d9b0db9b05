from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class DecodeOnly(AttentionBackend):
    """Shared plumbing, keeping no pool."""

    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = None


class KeepsPool(DecodeOnly):
    """Keeps the runner's pool: what the FROZEN_KV swap rebinds."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
