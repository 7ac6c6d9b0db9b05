"""Source snippets shared by the CLI and pre-commit tests."""
from textwrap import dedent

# A backend gated on the flag (one fixable KVP003 at line 6) that already resolves its pool
# and mirrors it exactly in the flag (so the rewrite of the gate cannot change behaviour).
GATED = dedent("""\
    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.use_sliding_window_kv_pool = self._swa_kv_pool is not None
        def forward_decode(self, layer):
            if self.use_sliding_window_kv_pool:
                return 1
            return 0
""")

# A backend that resolves its pool and still keeps a pool type test as its flag: the flag's
# finding has both a safe fix (a property over the resolved pool) and the unsafe rewrite.
RESOLVED_AND_FLAGGED = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class BothAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.use_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

        @staticmethod
        def _resolve_swa_kv_pool(model_runner):
            pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
            return pool if isinstance(pool, SWAKVPool) else None

        def forward_decode(self, q, k, v, layer, forward_batch):
            return "swa" if self.use_swa else "full"
""")
