"""Runtime guard for SGLang SWA KV pools: pool identity and page bounds checked before launch.

``verify_backend`` and ``verify_page_bounds`` are plain functions usable without a server;
the SGLang plugin (``runtime_guard.plugin:load``) calls them from hooks on every SWA-aware
attention backend that ``runtime_guard.backends`` describes. Importing this package needs
neither torch nor SGLang.
"""

from runtime_guard.bounds import verify_page_bounds
from runtime_guard.checks import verify_backend
from runtime_guard.errors import PoolGuardConfigError, SWAPoolMismatchError

__all__ = ["PoolGuardConfigError", "SWAPoolMismatchError", "verify_backend", "verify_page_bounds"]
