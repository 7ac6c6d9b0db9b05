from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from .hooks import LayoutRecorder


class _WindowMemo:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        original = cls.__init__

        def __init__(self, *args, **kw):
            original(self, *args, **kw)
            self.window = getattr(self.token_to_kv_pool, "swa_kv_pool", None)  # expect: KVP001

        cls.__init__ = __init__


class RecordedBackend(LayoutRecorder, AttentionBackend):  # expect: KVP002
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        if self.split_spaces:  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        self.loc = loc


class MemoBackend(_WindowMemo, AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window is not None:  # expect: KVP003
            return self.window.get_key_buffer(layer.layer_id)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
