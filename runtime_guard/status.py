"""``poolguard guard-status``: what the installed SGLang gets guarded and fixed, per backend.

Reads the same table and the same hook plan the plugin uses (``plugin.plan``), so what it
prints is what ``SGLANG_POOLGUARD=1`` / ``SGLANG_POOLGUARD_FIX=1`` would do on this host, and
the same switches through the same parser (``runtime_guard.config``), so it says what this
environment would do and refuses what the plugin refuses. It imports the backend modules (as
the plugin does when enabled) but registers nothing.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import re
import sys
from importlib import metadata
from typing import List, NamedTuple

from runtime_guard.backends import BackendSpec
from runtime_guard.config import (
    PLUGIN_NAME,
    PLUGINS_VAR,
    GuardConfig,
    plugin_allowed,
    read_config,
)
from runtime_guard.errors import PoolGuardConfigError


class StatusRow(NamedTuple):
    backend: str
    guarded: str  # methods hooked with the guard on, or "-"
    fixed: str  # "yes" / "no"
    why_not: str  # empty when everything is covered


def rows() -> List[StatusRow]:
    """One row per backend class of the table, then one per subclass SGLang ships of one
    that overrides a hooked method, as this host's SGLang has them, then one per installed
    backend class only the generic check covers."""
    from runtime_guard import plugin

    logging.getLogger("sglang").setLevel(logging.ERROR)  # import-time chatter of kernel modules
    with contextlib.redirect_stdout(sys.stderr):  # some kernel modules print on import
        covers = plugin.plan(GuardConfig(mode="check", fix=True))
    found = []
    for cover in covers:
        name = cover.target.rsplit(".", 1)[-1]
        if cover.target != cover.spec.target:
            name += f" (subclass of {cover.spec.name})"
        if cover.cls is None:
            found.append(StatusRow(name, "-", "no", cover.reason))
            continue
        found.append(StatusRow(name, _methods(cover.hooks), *_fix(cover.spec, cover)))
    from runtime_guard import generic  # classes no row names: the generic check's

    with contextlib.redirect_stdout(sys.stderr):
        found.extend(StatusRow(*row) for row in generic.status_rows())
    return found


def _methods(hooks: tuple) -> str:
    launches = [name.replace("forward_", "") for name, hook in hooks if hook == "guard_launch"]
    metadata_paths = sum(hook == "guard_metadata" for _, hook in hooks)
    return ", ".join(launches + [f"{metadata_paths} metadata/graph"])


def _fix(spec: BackendSpec, cover) -> tuple:
    held = spec.state_attrs + tuple(path.split(".")[0] for path in spec.pool_copies) + tuple(
        path.split(".")[0] for path, _ in spec.bound_copies) + spec.pool_aliases
    if not (spec.children or spec.inner) and not any(init_assigns(cover.cls, a) for a in held):
        why = "keeps no SWA state on this release: nothing can go stale"
        return "n/a", "; ".join(filter(None, [cover.reason, why]))
    return ("yes (fixed class)" if spec.fixed else "yes"), cover.reason


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


EXIT_SHOWN, EXIT_UNGUARDED, EXIT_BAD_VALUE = 0, 1, 2
CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"


def main() -> int:
    """Print the table and what this environment's switches would do.

    Exit 0 when the table is shown and the switches are valid (a class missing on this
    release is information, not a failure); 1 when SGLang cannot be seen here (not installed,
    does not import) or ``SGLANG_PLUGINS`` keeps SGLang from calling the plugin while a switch
    is on; 2 when a switch holds a value the plugin refuses.
    """
    try:
        config = read_config()
    except PoolGuardConfigError as err:
        _problem(f"{err}; the server would refuse to start")
        return EXIT_BAD_VALUE
    excluded = (config.guarding or config.fix) and not plugin_allowed()
    if excluded:
        _problem(f"{PLUGINS_VAR}={os.environ.get(PLUGINS_VAR, '')!r} leaves out "
                 f"'{PLUGIN_NAME}': SGLang will not call the plugin and nothing is guarded; "
                 f"add {PLUGIN_NAME} to {PLUGINS_VAR}")
    version = sglang_version()
    if version == "not installed":
        _problem("SGLang is not installed in this environment: nothing would be guarded")
        return EXIT_UNGUARDED
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout is the table alone
            import sglang.srt.layers.attention  # noqa: F401  (where every backend lives)
    except Exception as err:  # one line, not one per backend
        _problem(f"SGLang {version} does not import here ({_one_line(err)}): nothing would be "
                 f"guarded{_import_hint(err)}")
        return EXIT_UNGUARDED
    print(render(rows()), end="")
    print(f"\nThis environment: {config.describe()}"
          f"{' (SGLang will not load the plugin)' if excluded else ''}.")
    return EXIT_UNGUARDED if excluded else EXIT_SHOWN


def _problem(message: str) -> None:
    sys.stdout.flush()
    sys.stderr.write(f"poolguard: {message}\n")


def _one_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}"


def _import_hint(err: Exception) -> str:
    """The fix for the one import failure a CPU host meets: PyPI's torchvision is a CUDA build
    and cannot load its operators beside a CPU torch (``operator torchvision::nms ...``)."""
    if "torchvision::" not in str(err):
        return ""
    torch, vision = _installed("torch"), _installed("torchvision")
    return (f". torchvision {vision} is not built for torch {torch}: install both from one "
            f"index, e.g. on a CPU host: python3 -m pip install --force-reinstall --no-deps "
            f"--index-url {CPU_TORCH_INDEX} torch=={torch.split('+')[0]} "
            f"torchvision=={vision.split('+')[0]}")


def _installed(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(not installed)"
