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
