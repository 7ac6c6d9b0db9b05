# A buffer filled by a helper that tests the pool it is handed (through a type-test helper of
# another module): called at init with the runner's pool and again by every metadata build with
# the live one, so the test decides on the pool of that call; and a generator handed the
# backend itself, whose every resume reads the backend's live pool.
import torch
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .helpers import is_swa as _is_swa


def _owner_key_reader(owner):
    layer_id = yield
    while True:
        layer_id = yield owner.token_to_kv_pool.get_key_buffer(layer_id)


class RefilledBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._slot_storage = torch.zeros(64, dtype=torch.int64)
        self._fill(model_runner.token_to_kv_pool)
        self._key_reader = _owner_key_reader(self)
        next(self._key_reader)

    def _fill(self, pool):
        if _is_swa(pool):
            mapping = pool.full_to_swa_index_mapping
            self.swa_slot_buf = self._slot_storage[: mapping.numel()]
            self.swa_slot_buf.copy_(mapping)
        else:
            self.swa_slot_buf = self._slot_storage[:8]

    def init_forward_metadata(self, forward_batch):
        self._fill(self.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch):
        self._key_reader.send(layer.layer_id)
        return self.swa_slot_buf[forward_batch.out_cache_loc]
