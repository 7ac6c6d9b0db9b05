"""SGLang plugin entry point (group ``sglang.srt.plugins``, name ``poolguard``).

``sglang.srt.plugins.load_plugins()`` imports this module and calls ``load()`` in every
process. With ``SGLANG_POOLGUARD`` unset/0/off and no ``SGLANG_POOLGUARD_FIX`` it reads the
environment and returns: nothing else of the guard is imported, nothing is patched. Otherwise
``runtime_guard.plugin`` registers the hooks. A bad value stops the server with one line.
"""

from __future__ import annotations

from runtime_guard.config import read_config
from runtime_guard.errors import PoolGuardConfigError


def load() -> None:
    """Entry point called by SGLang's plugin loader."""
    try:
        config = read_config()
    except PoolGuardConfigError as err:
        # SystemExit passes load_plugins()' `except Exception`: the server refuses to start
        # with this one line instead of running unguarded after a logged traceback.
        raise SystemExit(f"poolguard: {err}") from None
    if config.guarding or config.fix:
        from runtime_guard.plugin import start

        start(config)
