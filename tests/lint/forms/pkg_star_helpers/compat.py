"""The sub-pool getter: the package's own, unless an accelerated build ships one."""
from __future__ import annotations

try:
    from ._pool_tools import index_map_of as window_index_map
except ImportError:  # a trimmed install
    from sglang_accel.kv import window_index_map  # type: ignore[import-not-found]

__all__ = ("window_index_map",)
