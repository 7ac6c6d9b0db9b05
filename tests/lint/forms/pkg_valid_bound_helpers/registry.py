from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .probes import KV_PROBES


class LiveProbeTableBackend(AttentionBackend):
    """The registry's tests run on the live pool at every metadata build."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        for kind, probe in KV_PROBES.items():
            setattr(self, f"_is_{kind}", probe(self.token_to_kv_pool))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if getattr(self, "_is_window", False):
            return q
        return k
