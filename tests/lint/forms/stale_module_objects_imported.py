from sglang.srt.layers.attention import swa_state
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.swa_state import LAYOUT, TABLES


class SharedStateBackend(AttentionBackend):
    """State kept on objects other modules own: an imported module's globals, an object or
    table imported from it. They outlive the call as module globals do."""

    def __init__(self, model_runner):
        self.token_to_kv_pool = pool = model_runner.token_to_kv_pool
        swa_state.STATE.loc_map = pool.full_to_swa_index_mapping  # expect: KVP001
        swa_state.WINDOW_POOL = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        LAYOUT.split = hasattr(pool, "swa_kv_pool")  # expect: KVP002
        swa_state.TABLES2["to_swa"] = pool.translate_loc_from_full_to_swa  # expect: KVP001
        TABLES["to_swa"] = pool.translate_loc_from_full_to_swa  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if LAYOUT.split:  # expect: KVP003
            return q
        return k
