def attach_window(holder, pool):
    holder.window = getattr(pool, "swa_kv_pool", None)
    holder.page_size = pool.page_size


def attach_geometry(holder, pool):
    holder.page_size = pool.page_size
