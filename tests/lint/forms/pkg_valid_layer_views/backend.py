import weakref

from . import base

_Base = base.KeepsPool


class _LayerView(base.DecodeOnly):
    """A layer's inner backend whose pool is a view of its parent's (a property, no setter):
    the parent's swap reaches it."""

    def __init__(self, parent, layer_id: int):
        self._parent = weakref.ref(parent)
        self.layer_id = layer_id

    @property
    def token_to_kv_pool(self):
        return self._parent().token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.token_to_kv_pool.get_key_buffer(self.layer_id)


class PerLayerViewBackend(_Base):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.per_layer = tuple(_LayerView(self, i) for i in range(4))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.per_layer[layer.layer_id].forward_decode(q, k, v, layer, forward_batch)
