import pkg_module_attributes.shared as worker_state
from pkg_module_attributes import shared
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class SharedStateAttnBackend(AttentionBackend):
    """Pool state set as attributes of another module of the package (``shared.X = ...``,
    ``shared.T[k] = ...``) at construction, and decided on per forward."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        shared.SWA_ACTIVE = isinstance(pool, SWAKVPool)  # expect: KVP002
        for layer_id in range(model_runner.model_config.num_hidden_layers):
            shared.WINDOWS[layer_id] = model_runner.sliding_window_size
            if isinstance(pool, SWAKVPool):
                worker_state.SUB_POOLS[layer_id] = pool.swa_kv_pool  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if worker_state.SWA_ACTIVE:  # expect: KVP003
            loc = self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        window = shared.WINDOWS.get(layer.layer_id, -1)
        return q[:, -window:] if window > 0 else q
