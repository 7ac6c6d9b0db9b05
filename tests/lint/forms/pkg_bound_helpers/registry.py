from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .probes import KV_PROBES


class ProbeTableBackend(AttentionBackend):
    """Every test of a registry run once, each verdict kept under its kind's name."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        for kind, probe in KV_PROBES.items():
            setattr(self, f"_is_{kind}", probe(self.token_to_kv_pool))  # expect: KVP002
        self.verdicts = [probe(self.token_to_kv_pool) for probe in KV_PROBES.values()]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if getattr(self, "_is_window", False):  # expect: KVP003
            return q
        return k
