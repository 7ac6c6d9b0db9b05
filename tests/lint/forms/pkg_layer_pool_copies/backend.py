from . import base

_Base = base.KeepsPool


class _LayerCopy(base.DecodeOnly):
    """A layer's inner backend whose property answers the pool it copied off its parent at
    init: the parent's swap never reaches that copy."""

    def __init__(self, parent, layer_id: int):
        self._pool = parent.token_to_kv_pool
        self.layer_id = layer_id

    @property
    def token_to_kv_pool(self):
        return self._pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.token_to_kv_pool.get_key_buffer(self.layer_id)


class PerLayerCopyBackend(_Base):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.per_layer = tuple(_LayerCopy(self, i) for i in range(4))  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.per_layer[layer.layer_id].forward_decode(q, k, v, layer, forward_batch)
