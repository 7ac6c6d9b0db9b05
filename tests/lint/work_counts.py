"""How much work the lint does on generated input of growing size, counted, not timed.

Work is the number of profiler events (Python calls and returns, calls of builtins) while the
engine runs: the same for the same input on any machine and under any load (with a fixed
``PYTHONHASHSEED``), so a test can ask that it grows linearly with the input without timing
anything. A loop that walks a method per store, or every class per gate, shows as a count that
grows with the square of the input, as the three regressions timed by the smoke benchmark did.

Each path is measured at a base size (the fixed cost, subtracted) and two sizes:
- ``lint``: ``lint_source`` on the smoke benchmark's scaling file (``gated_file``);
- ``fix``: ``fix_source(..., unsafe=True)`` on the same file: fix planning and libcst's rewrite;
- ``methods``: ``fix_source`` on one class of many methods, each gating once (``methods_file``):
  each gate's fix asked what the class binds, walking it whole, and the plan compared each
  fix with every one accepted before it (attack17: 20,000 gates, 4 minutes, then KVP900);
- ``package``: ``poolguard lint DIR``'s run on a package of leaf modules, each a backend whose
  bases (a base module and a mixin module) hold and read the flag (``gated_package``). The
  run's analyses happen in the run's worker processes, which the profiler of this one does not
  see, so here the same ``analyse`` of each file runs in this process instead. What each
  result read is recorded for the cache (``PackageIndex._touch``, once per module read): a
  leaf reads every heir of the mixin, so that record grows as leaves x heirs by design, and
  its calls are not counted (counted, 10 -> 80 leaves cost 8.9 x, not 7.8 x).

    python tests/lint/work_counts.py     # prints the counts as JSON
"""
from __future__ import annotations

import gc
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# (base size, size, 8 x size) per path: gates in one file, or leaf modules in one package
SIZES = {"lint": (2, 100, 800), "fix": (2, 30, 240), "package": (0, 10, 80),
         "unpack": (2, 100, 800), "methods": (2, 30, 240)}

_BASE = """\
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class WindowBase(AttentionBackend):
    def __init__(self, model_runner):
        self.use_sliding_window_kv_pool = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
"""
_MIXIN = """\
class WindowMixin:
    def window_of(self, layer):
        return layer.sliding_window_size if self.use_sliding_window_kv_pool else -1
"""
_LEAF = """\
from .base import WindowBase
from .mixin import WindowMixin


class Leaf{i}AttnBackend(WindowMixin, WindowBase):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.split{i} = self.use_sliding_window_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        if self.split{i}:
            return self.window_of(layer)
        return q
"""


def gated_file(gates: int) -> str:
    """The smoke benchmark's scaling file (``benchmarks/lint_throughput.py``)."""
    spec = importlib.util.spec_from_file_location(
        "lint_throughput", ROOT / "benchmarks" / "lint_throughput.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.gated_file(gates)


def methods_file(methods: int) -> str:
    """One backend of ``methods`` methods, each gating once on the flag that mirrors the pool:
    every gate's safe fix asks what the class binds, and the plan whether it clashes."""
    return _MIRROR + "".join(f"\n    def forward_{i}(self, q):\n"
                             f"        if self.use_sliding_window_kv_pool:\n"
                             f"            return {i}\n        return q\n"
                             for i in range(methods))


_MIRROR = """\
class MirrorAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None
"""


def unpacked_file(elements: int) -> str:
    """A backend unpacking three displays of ``elements`` each into as many stores: pool reads,
    SWA type tests after a starred part, and a ternary choosing between two of them (each
    element's store keeps the whole display when its parts are not spelled one by one)."""
    def targets(prefix: str) -> str:
        return ", ".join(f"self.{prefix}{i}" for i in range(elements))

    pools = ", ".join(["runner.token_to_kv_pool"] * elements)
    tests = ", ".join(["isinstance(runner.token_to_kv_pool, SWAKVPool)"] * elements)
    nones = ", ".join(["None"] * elements)
    gates = "".join(f"        if self.s{i}:\n            return {i}\n" for i in range(elements))
    return (f"{_UNPACKING}        {targets('p')} = {pools}\n"
            f"        {targets('s')} = *rest, {tests}\n"
            f"        {targets('t')} = ({tests}) if rest else ({nones})\n\n"
            f"    def forward_decode(self, q, k, v, layer, forward_batch):\n{gates}")


_UNPACKING = """\
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class UnpackingAttnBackend(AttentionBackend):
    def __init__(self, runner, rest):
"""


def gated_package(leaves: int, folder: Path) -> Path:
    """A package of ``leaves`` backend modules inheriting a flag from a base module and a
    mixin module that gates on it; each leaf keeps a copy of the flag and gates on that."""
    root = Path(tempfile.mkdtemp(dir=folder)) / "pkg"  # a fresh package per call
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "base.py").write_text(_BASE)
    (root / "mixin.py").write_text(_MIXIN)
    for index in range(leaves):
        (root / f"leaf_{index}.py").write_text(_LEAF.format(i=index))
    return root


def counted(work, skip: frozenset = frozenset()) -> dict:
    """``work()``'s profiler events (but those of functions named in ``skip``), full (oldest
    generation) collections and result."""
    events = full = 0

    def profile(frame, event, arg):
        nonlocal events
        events += frame.f_code.co_name not in skip

    def collections(phase, info):
        nonlocal full
        full += phase == "start" and info["generation"] == 2

    gc.callbacks.append(collections)
    sys.setprofile(profile)
    try:
        result = work()
    finally:
        sys.setprofile(None)
        gc.callbacks.remove(collections)
    return {"events": events, "full_collections": full, "findings": result}


def _lint(gates: int):
    from lint_rules.engine import lint_source

    source = gated_file(gates)
    return lambda: len(lint_source(source))


def _fix(gates: int):
    from lint_rules.engine import fix_source

    source = gated_file(gates)
    return lambda: len(fix_source(source, unsafe=True)[1])


def _methods(methods: int):
    from lint_rules.engine import fix_source

    source = methods_file(methods)
    return lambda: fix_source(source)[0].count("is not None:")


def _unpack(elements: int):
    from lint_rules.engine import lint_source

    source = unpacked_file(elements)
    return lambda: len(lint_source(source))


def _package(leaves: int, folder: Path):
    from lint_rules import runner
    from lint_rules.config import RunConfig
    from lint_rules.engine import DEFAULT_CODES
    from lint_rules.options import Options

    def in_this_process(state, jobs, workers, mode, options):
        for job in jobs:
            state.complete(job, *runner.analyse(mode, options, job))

    runner._analyse_all = in_this_process
    root = gated_package(leaves, folder)
    config = RunConfig(codes=frozenset(DEFAULT_CODES), options=Options(), root=root.parent)
    return lambda: sum(len(f.findings) for f in runner.run([str(root)], config, jobs=1).files)


def measure() -> dict:
    """``{path: [counts at each size]}``, after one warm-up run per path (imports, libcst)."""
    skip = {"package": frozenset({"_touch"})}  # the dependency record, see above
    found = {}
    with tempfile.TemporaryDirectory(prefix="poolguard-linear-") as folder:
        makers = {"lint": _lint, "fix": _fix, "unpack": _unpack, "methods": _methods,
                  "package": lambda leaves: _package(leaves, Path(folder))}
        for name, sizes in SIZES.items():
            makers[name](sizes[0])()
            found[name] = [counted(makers[name](size), skip.get(name, frozenset()))
                           for size in sizes]
    return found


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(json.dumps(measure()))
