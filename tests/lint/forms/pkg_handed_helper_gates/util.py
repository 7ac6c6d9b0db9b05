"""The helper: what it answers is the backend's kept flag."""
def wants_swa_write(backend, save_kv_cache):
    return save_kv_cache and backend.use_sliding_window_kv_pool
