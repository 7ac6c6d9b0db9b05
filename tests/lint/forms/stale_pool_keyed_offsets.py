from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PoolKeyedOffsetsBackend(AttentionBackend):
    """The same seeding, but the launch walks the dict's keys: it reads the init-time pool."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.layer_offsets = {model_runner.token_to_kv_pool: 0}  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        for pool, offset in self.layer_offsets.items():
            pool.get_key_buffer(layer.layer_id + offset)
        return q
