"""Static checks (libcst) that flag SWA KV-pool state cached from a pool that is swapped at runtime."""
