from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


def make_kernel(pool):
    """Probes the pool for a mapping under either name (for/else), and returns a kernel that
    closes over what it found."""
    for name in ("full_to_swa_index_mapping", "swa_index_map"):
        mapping = getattr(pool, name, None)
        if mapping is not None:
            break
    else:
        mapping = None

    def kernel(loc):
        return mapping[loc] if mapping is not None else loc

    return kernel


class ProbedKernelBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kernel = make_kernel(self.token_to_kv_pool)  # expect: KVP001
