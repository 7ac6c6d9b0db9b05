"""User options shared by every rule, the flake8 adapter and the CLI (resolved once per run)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Union


@dataclass(frozen=True)
class Options:
    """Per-run configuration; the defaults match upstream SGLang naming."""

    backend_bases: tuple[str, ...] = ()  # extra base-class names that make a class a backend
    swa_flags: tuple[str, ...] = ()  # extra boolean SWA flag attribute names (KVP003)
    pool_attr: str = "_swa_kv_pool"  # the attribute KVP002/3/4 fixes read instead of a flag

    @staticmethod
    def parse_list(value: Union[str, Iterable[str], None]) -> tuple[str, ...]:
        """Turn ``"a, b"`` or ``["a", " b"]`` (flake8 / config forms) into ``("a", "b")``."""
        if value is None:
            return ()
        items = value.split(",") if isinstance(value, str) else value
        return tuple(item.strip() for item in items if item and item.strip())
