"""Exception types raised by the runtime guard."""

from __future__ import annotations


class SWAPoolMismatchError(RuntimeError):
    """A trtllm attention launch would read the KV cache through the wrong pool or page table.

    Raised before the kernel runs, in place of the ``illegal memory access`` the launch
    would otherwise produce.
    """


class PoolGuardConfigError(ValueError):
    """An ``SGLANG_POOLGUARD*`` environment variable holds a value the guard does not accept."""
