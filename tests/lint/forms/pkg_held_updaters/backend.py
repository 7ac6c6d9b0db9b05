from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .updater import IndicesUpdater


class UpdatedBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.indices_updater = IndicesUpdater(model_runner, self)

    def init_forward_metadata(self, forward_batch):
        self.loc = self.indices_updater.update(forward_batch)  # expect: KVP001
