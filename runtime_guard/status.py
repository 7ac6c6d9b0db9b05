"""``poolguard guard-status``: what the installed SGLang gets guarded and fixed, per backend.

Reads the same table and the same hook plan the plugin uses (``plugin.coverage``), so what it
prints is what ``SGLANG_POOLGUARD=1`` / ``SGLANG_POOLGUARD_FIX=1`` would do on this host. It
imports the backend modules (as the plugin does when enabled) but registers nothing.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import re
import sys
from importlib import metadata
from typing import List, NamedTuple

from runtime_guard.backends import BACKENDS, BackendSpec
from runtime_guard.config import GuardConfig


class StatusRow(NamedTuple):
    backend: str
    guarded: str  # methods hooked with the guard on, or "-"
    fixed: str  # "yes" / "no"
    why_not: str  # empty when everything is covered


def rows() -> List[StatusRow]:
    """One row per backend class of the table, as this host's SGLang has it."""
    from runtime_guard import plugin

    logging.getLogger("sglang").setLevel(logging.ERROR)  # import-time chatter of kernel modules
    found = []
    for spec in BACKENDS:
        with contextlib.redirect_stdout(sys.stderr):  # some kernel modules print on import
            cover = plugin.coverage(spec, GuardConfig(mode="check", fix=True))
        if cover.cls is None:
            found.append(StatusRow(spec.name, "-", "no", cover.reason))
            continue
        found.append(StatusRow(spec.name, _methods(cover.hooks), *_fix(spec, cover)))
    return found


def _methods(hooks: tuple) -> str:
    launches = [name.replace("forward_", "") for name, hook in hooks if hook == "guard_launch"]
    metadata_paths = sum(hook == "guard_metadata" for _, hook in hooks)
    return ", ".join(launches + [f"{metadata_paths} metadata/graph"])


def _fix(spec: BackendSpec, cover) -> tuple:
    from runtime_guard import plugin

    if spec.children is None and not any(init_assigns(cover.cls, a) for a in spec.state_attrs):
        why = "keeps no SWA state on this release: nothing can go stale"
        return "n/a", "; ".join(filter(None, [cover.reason, why]))
    return ("yes (fixed class)" if spec.name in plugin.FIXED_CLASSES else "yes"), cover.reason


def init_assigns(cls: type, attr: str) -> bool:
    """Whether an ``__init__`` in ``cls``'s MRO assigns ``self.<attr>``, read from its source
    (which SWA state a backend keeps differs between SGLang releases)."""
    pattern = re.compile(rf"self\.{attr}\s*(:[^=]+)?=[^=]")
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is None or klass is object:
            continue
        try:
            source = inspect.getsource(init)
        except (OSError, TypeError):  # no source (C or compiled-only install): assume it does
            return True
        if pattern.search(source):
            return True
    return False


def sglang_version() -> str:
    try:
        return metadata.version("sglang")
    except metadata.PackageNotFoundError:
        return "not installed"


def render(table: List[StatusRow]) -> str:
    """A plain-text table, widths fitted to the content."""
    header = StatusRow("backend class", "guarded methods", "fixed", "not covered / why")
    widths = [max(len(row[i]) for row in [header] + table) for i in range(3)]
    lines = [f"SGLang {sglang_version()}: backends poolguard describes", ""]
    for row in [header] + table:
        cells = [row[i].ljust(widths[i]) for i in range(3)] + [row.why_not]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def main() -> int:
    """Print the table; exit 0 whatever is missing (it is information, not a failure)."""
    version = sglang_version()
    if version == "not installed":
        print("SGLang is not installed here: nothing to guard.")
        return 0
    try:
        import sglang.srt.layers.attention  # noqa: F401  (the package every backend lives in)
    except Exception as err:  # one line, not one per backend
        text = str(err).strip().splitlines()
        print(f"SGLang {version} does not import here ({type(err).__name__}: "
              f"{text[0] if text else ''}): nothing would be guarded.")
        return 0
    print(render(rows()), end="")
    return 0
