from pkg_valid_module_attributes import shared
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class SharedGeometryAttnBackend(AttentionBackend):
    """Geometry set as attributes of another module at construction; the SWA verdict set there
    again on every forward, from the pool of that forward, before it is read."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        for layer_id in range(model_runner.model_config.num_hidden_layers):
            shared.WINDOWS[layer_id] = model_runner.sliding_window_size
        shared.DTYPES["kv"] = model_runner.kv_cache_dtype

    def init_forward_metadata(self, forward_batch):
        shared.SWA_ACTIVE = isinstance(self.token_to_kv_pool, SWAKVPool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if shared.SWA_ACTIVE:
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        window = shared.WINDOWS.get(layer.layer_id, -1)
        if window > 0:
            loc = loc[-window:]
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]
