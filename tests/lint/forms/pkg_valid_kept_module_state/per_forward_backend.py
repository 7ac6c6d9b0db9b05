from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

from . import window_registry
from .helpers import LiveTranslator, Pager, page_rows


class PerForwardRegistryAttnBackend(AttentionBackend):
    """Publishes the batch's pool per forward; hands itself to helpers that keep geometry or
    read its pool when called."""

    def __init__(self, model_runner):
        super().__init__()
        self.model_runner = model_runner
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        window_registry.note_geometry(self)
        self.pager = Pager.for_backend(self)
        self.translate = LiveTranslator.attach(self)
        self.rows = page_rows(self)

    def init_forward_metadata(self, forward_batch):
        window_registry.publish(forward_batch.token_to_kv_pool)
        translate = window_registry.translator()
        loc = forward_batch.out_cache_loc
        self.swa_loc = translate(loc) if translate is not None else loc
        if self.pager is not None:
            self.pages = loc // self.pager.page_size
        if self.translate:
            self.swa_loc = self.translate(loc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if window_registry.SWA_ON and layer.sliding_window_size > 0:
            return self.swa_loc
        if window_registry.page_size() > 1 and self.rows:
            return None
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
