from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .traits import StampingMeta, registered_as, with_window_trait


@with_window_trait  # expect: KVP002
class TraitBackend(AttentionBackend):
    window_trait = False

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if type(self).window_trait:  # expect: KVP003
            return q
        return k


class StampedBackend(AttentionBackend, metaclass=StampingMeta):  # expect: KVP002
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.stamped:  # expect: KVP003
            return q
        return k


@registered_as("ring")  # expect: KVP002
class RingBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.mode == 2:  # expect: KVP003
            return q
        return k
