"""Static checks (libcst) for SWA KV-pool state cached from a pool swapped at runtime."""
