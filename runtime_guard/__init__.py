"""Runtime guard for SGLang SWA KV pools: pool identity and page bounds checked before launch.

``verify_backend`` and ``verify_page_bounds`` are plain functions usable without a server;
the SGLang plugin (``runtime_guard.entry:load``, then ``runtime_guard.plugin``) calls them
from hooks on every SWA-aware attention backend that ``runtime_guard.backends`` describes.
Importing this package needs neither torch nor SGLang, and imports nothing of the guard.
"""

from importlib import import_module

# name -> the module defining it, imported on first use: SGLang's plugin loader imports this
# package for the entry point (``runtime_guard.entry``), which must cost nothing when the guard
# is off
_EXPORTS = {
    "PoolGuardConfigError": "runtime_guard.errors",
    "SWAPoolMismatchError": "runtime_guard.errors",
    "verify_backend": "runtime_guard.checks",
    "verify_page_bounds": "runtime_guard.bounds",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_EXPORTS))
