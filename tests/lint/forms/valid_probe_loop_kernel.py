from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


def page_geometry(pool):
    """Copies geometry off the pool by name (for/else)."""
    found = {}
    for name in ("page_size", "head_num"):
        found[name] = getattr(pool, name, 1)
        if found[name] is None:
            break
    else:
        found["complete"] = True
    return found


class GeometryLoopBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.geometry = page_geometry(self.token_to_kv_pool)
