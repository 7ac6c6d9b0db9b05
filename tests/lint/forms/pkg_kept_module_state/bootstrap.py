"""Start-up steps shared by the backends: they publish what the kernels look up."""
from . import window_registry


def prepare(kv_pool, rows=8):
    window_registry.publish(kv_pool, rows)
