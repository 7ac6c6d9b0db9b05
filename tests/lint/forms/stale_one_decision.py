"""One decision, one finding (rel6 DOUBTFUL-1, P-6). A decision reading two stale flags
(``elif self.unified and self.swa:``) is one finding naming both; a boolean expression or a
choice stored outside per-forward code (``self.verify = self.unified and not self.mla``) is
data: the store's finding (KVP002's second-order flag, KVP001's choice) covers the read inside
it. Twins keep their findings: two tests on one line are two decisions, and a flag made again
on every forward is no store to report, so its gate is the finding."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class TwoFlagsAttnBackend(AttentionBackend):
    """A while, an assert and a ternary, each on two flags (a type test's and the runner's)."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        self.hybrid = model_runner.is_hybrid_swa  # expect: KVP002

    def forward_decode(self, q, k, v, layer, forward_batch):
        assert not (self.swa and not self.hybrid) or layer.layer_id >= 0  # expect: KVP003
        while self.swa or self.hybrid:  # expect: KVP003
            break
        table = forward_batch.swa if self.hybrid and not self.swa else None  # expect: KVP003
        return table if self.swa else (q if self.hybrid else k)  # expect: KVP003,KVP003


class StoredExpressionAttnBackend(AttentionBackend):
    """Stored: a negation, a dict entry made of a choice, an or with geometry; made again per
    forward: the gate."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        self.full_only = not self.swa  # expect: KVP002
        self.names = {"table": "swa_page_table" if self.swa else "page_table"}  # expect: KVP001
        self.windowed = self.swa or model_runner.sliding_window_size > 0  # expect: KVP002

    def init_forward_metadata(self, forward_batch):
        self.use_window = self.swa and forward_batch.batch_size > 1  # expect: KVP003
