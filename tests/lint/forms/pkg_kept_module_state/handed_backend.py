from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .page_tables import WindowPageTable, window_buffers


class HandedAttnBackend(AttentionBackend):
    """Helpers of another module handed the backend itself read its pool once."""

    def __init__(self, model_runner):
        super().__init__()
        self.model_runner = model_runner
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.window_table = WindowPageTable.build(self)  # expect: KVP001
        self.window_pool = window_buffers(self)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        tokens = forward_batch.req_pool_indices
        if self.window_table is not None:  # expect: KVP003
            self.window_pages = self.window_table.pages(tokens)
        if not self.window_pool:  # expect: KVP003
            self.window_pages = None
