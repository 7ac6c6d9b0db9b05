"""One plugin-loader scenario per process (run by test_guard_plugin.py).

SGLang's ``load_plugins()`` patches classes for the life of a process, so each scenario runs
here, in a fresh interpreter, and prints its observations as one JSON line on stdout.
Usage: ``python loader_child.py SCENARIO`` with the SGLANG_POOLGUARD* variables set.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback

import kernel_shim
from runtime_guard.backends import BACKENDS
from runtime_guard.demo import scenarios as sc

METHODS = (
    "__init__", "forward_decode", "forward_extend", "init_forward_metadata",
    "init_forward_metadata_out_graph", "init_forward_metadata_replay_cuda_graph",
    "init_forward_metadata_capture_cuda_graph",
)


def _methods(cls) -> dict:
    return {name: cls.__dict__[name] for name in METHODS if name in cls.__dict__}


def described_classes() -> dict:
    """Every class of the backend table that imports here, by name."""
    import importlib

    found = {}
    for spec in BACKENDS:
        try:
            found[spec.name] = getattr(importlib.import_module(spec.module), spec.name)
        except Exception:  # noqa: BLE001 - a class absent here is simply not observed
            continue
    return found


def _reload(sg) -> None:
    """What a second ``load_plugins()`` call in a fresh loader state does."""
    import sglang.srt.plugins as plugins

    plugins._plugins_loaded = False
    sg.load_plugins()


def off(sg) -> dict:
    """Unset, "0" and "off" in turn: classes and functions stay the very same objects."""
    import os

    classes = described_classes()
    before = {name: _methods(cls) for name, cls in classes.items()}
    untouched = []
    for value in (None, "0", "off"):
        if value is not None:
            os.environ["SGLANG_POOLGUARD"] = value
        _reload(sg)
        now = described_classes()
        untouched.append(
            all(now[name] is cls for name, cls in classes.items())
            and all(
                _methods(classes[name])[method] is fn
                for name, old in before.items()
                for method, fn in old.items()
            )
        )
    return {
        "untouched": untouched,
        "classes": sorted(classes),
        "registered": sorted(sg.HookRegistry._hooks),
        "hooks_imported": "runtime_guard.hooks" in sys.modules,
    }


def every_backend(sg) -> dict:
    """With the guard on: which launch and metadata entry points of every class are wrapped
    (inherited ones count through the class that defines them)."""
    classes = described_classes()
    sg.load_plugins()
    wrapped = {}
    for name, cls in classes.items():
        wrapped[name] = sorted(
            method for method in METHODS
            if hasattr(getattr(cls, method, None), "__wrapped__")
        )
    return {"wrapped": wrapped}


def check(sg) -> dict:
    upstream = sg.TRTLLMHAAttnBackend
    before = _methods(upstream)
    sg.load_plugins()
    hooked = _methods(upstream)
    first = dict(hooked)
    _reload(sg)
    twice = all(_methods(upstream)[n] is f for n, f in first.items())
    sg.HookRegistry.reset()
    _reload(sg)
    after_reset = all(_methods(upstream)[n] is f for n, f in first.items())
    return {
        "wrapped": sorted(n for n, f in hooked.items() if f is not before[n]),
        "wraps_original": all(f.__wrapped__ is before[n] for n, f in hooked.items()),
        "idempotent": twice and after_reset,
        "replay": _replay_bug(sg),
    }


def _replay_bug(sg) -> dict:
    """The FROZEN_KV crash through the hooked class: the error and the untouched KV buffer."""
    import torch

    target = sc.swa_pool()
    draft_pool = sc.mha_pool(layer_num=1)
    runner = sc.runner(
        draft_pool, sc.swa_allocator(target), draft=True, spec="FROZEN_KV_MTP"
    )
    backend = sc.construct_backend(sc.pre_fix_backend_class(), runner)
    seq = [30, 29]
    sc.metadata(backend, seq, sc.contiguous_page_table(seq, 9))
    batch = sc.decode_batch(draft_pool, seq)
    buffer = target.get_kv_buffer(0)[0]
    before = buffer.clone()
    q = torch.zeros(2, 16, dtype=sc.DTYPE)
    k = torch.ones(2, 8, dtype=sc.DTYPE)
    try:
        with sc.frozen_kv_view(batch, target, backend):
            backend.forward_decode(q, k, k.clone(), sc.layer(0), batch)
        error = None
    except Exception as err:  # noqa: BLE001 - the type is the observation
        error = f"{type(err).__name__}: {err}"
    return {"error": error, "kv_untouched": bool(torch.equal(buffer, before))}


def fix(sg) -> dict:
    module = sg.trtllm_mha_backend
    upstream = module.TRTLLMHAAttnBackend
    sg.load_plugins()
    fixed = sc.fixed_backend_module()
    from sglang.srt.layers.attention.attention_registry import ATTENTION_BACKENDS

    runner = sc.runner(sc.swa_pool(), None)
    runner.use_mla_backend = False
    try:
        ATTENTION_BACKENDS["trtllm_mha"](runner)  # stops where the CPU cannot go on
        frames = []
    except Exception as err:  # noqa: BLE001
        frames = [f.filename for f in traceback.extract_tb(err.__traceback__)]
    return {
        "backend": module.TRTLLMHAAttnBackend is fixed.FixedTRTLLMHAAttnBackend,
        "draft": module.TRTLLMHAAttnMultiStepDraftBackend
        is fixed.FixedTRTLLMHAAttnMultiStepDraftBackend,
        "fixed_subclasses_upstream": issubclass(fixed.FixedTRTLLMHAAttnBackend, upstream),
        "registry_builds_fixed": any(f.endswith("fixed_backend.py") for f in frames),
        "fixed_launch_hooked": "forward_decode" in vars(fixed.FixedTRTLLMHAAttnBackend),
    }


def fix_every_backend(sg) -> dict:
    """With SGLANG_POOLGUARD=1 and SGLANG_POOLGUARD_FIX=1 through the real loader: a FROZEN_KV
    draft's backend of each class launches under the target view without a guard error, its
    SWA flags following the target pool (the kernel itself may not run on a CPU)."""
    from runtime_guard.backends import spec_for
    from runtime_guard.status import init_assigns

    sg.load_plugins()
    seen = {}
    for name, cls in described_classes().items():
        spec = spec_for(cls)
        if not (spec.launches and spec.state_attrs):
            continue
        runner, target = sc.configuration("FROZEN_KV draft")
        backend = sc.any_backend(cls, runner)
        batch = sc.decode_batch(runner.token_to_kv_pool, [5, 9])
        sc.metadata(backend, [5, 9], sc.contiguous_page_table([5, 9], 4),
                    sc.contiguous_page_table([5, 9], 4) % 8)
        try:
            with sc.frozen_kv_view(batch, target, backend):
                backend.init_forward_metadata(batch)
                backend.forward_decode(*sc.decode_args(batch, 0))
            outcome = "ran"
        except Exception as err:  # noqa: BLE001 - the type is the observation
            outcome = type(err).__name__
        flags = [bool(getattr(backend, a)) for a in spec.flag_attrs if a in vars(backend)]
        keeps = any(init_assigns(cls, attr) for attr in spec.state_attrs)
        seen[name] = {"outcome": outcome, "flags": flags, "keeps_state": keeps}
    return seen


def degraded(sg) -> dict:
    """An SGLang without the trtllm module, then one without any metadata method:
    each load logs one line and completes."""
    from runtime_guard import plugin

    module = sg.trtllm_mha_backend
    sys.modules[module.__name__] = None  # import of the backend module now fails
    sg.load_plugins()
    sys.modules[module.__name__] = module
    upstream = module.TRTLLMHAAttnBackend
    for name in plugin.METADATA:
        for cls in upstream.__mro__:
            if name in vars(cls):
                delattr(cls, name)
    _reload(sg)
    return {"decode_hooked": hasattr(upstream.forward_decode, "__wrapped__")}


def announce(sg) -> dict:
    """Three loads in turn: off, the fix alone, bounds with action log. Each load's log lines
    follow a ``runtime_guard| load N`` marker on stderr."""
    import os

    for number, env in enumerate(({"SGLANG_POOLGUARD": "off"}, {"SGLANG_POOLGUARD_FIX": "on"},
                                  {"SGLANG_POOLGUARD": "bounds",
                                   "SGLANG_POOLGUARD_ACTION": "log"})):
        for name in ("SGLANG_POOLGUARD", "SGLANG_POOLGUARD_FIX", "SGLANG_POOLGUARD_ACTION"):
            os.environ.pop(name, None)
        os.environ.update(env)
        logging.getLogger("runtime_guard").warning("load %d", number)
        _reload(sg)
    return {"loads": 3}


PROBE_MODULE = "sglang.srt.layers.attention.poolguard_probe_backend"


def _probe_subclass():
    """A subclass of SGLang's Triton backend, as a new SGLang module would ship one: it
    overrides ``forward_decode`` and has the ``forward_mixed`` launch the base dispatches."""
    import types

    from sglang.srt.layers.attention.triton_backend import TritonAttnBackend

    module = types.ModuleType(PROBE_MODULE)
    sys.modules[PROBE_MODULE] = module

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
        return "probe decode"

    def forward_mixed(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return "probe mixed"

    cls = type("ProbeTritonAttnBackend", (TritonAttnBackend,), {
        "__module__": PROBE_MODULE, "forward_decode": forward_decode,
        "forward_mixed": forward_mixed})
    module.ProbeTritonAttnBackend = cls
    return cls


def subclass(sg) -> dict:
    """A subclass overriding launch methods is found at load, hooked on what it overrides
    (each launch checked once), listed by guard-status, and its stale launches refused."""
    from runtime_guard import status
    from runtime_guard.errors import SWAPoolMismatchError

    cls = _probe_subclass()
    base = cls.__mro__[1]
    sg.load_plugins()
    wrapped = sorted(name for name in ("forward_decode", "forward_mixed", "forward_extend")
                     if hasattr(vars(cls).get(name), "__wrapped__"))
    runner, target = sc.configuration("FROZEN_KV draft")
    backend = sc.any_backend(cls, runner)
    refused = {}
    for name in ("forward_decode", "forward_mixed", "forward_extend"):
        batch = sc.decode_batch(runner.token_to_kv_pool, [5, 9])
        try:
            with sc.frozen_kv_view(batch, target, backend):
                getattr(backend, name)(*sc.decode_args(batch, 0))
            refused[name] = None
        except SWAPoolMismatchError as err:
            refused[name] = str(err)
        except Exception as err:  # noqa: BLE001 - the kernel beyond the guard on a CPU
            refused[name] = f"ran: {type(err).__name__}"
    listed = [row.backend for row in status.rows() if "Probe" in row.backend]
    return {"wrapped": wrapped, "base_decode_once": not hasattr(
        base.forward_decode.__wrapped__, "__wrapped__"), "refused": refused, "listed": listed,
        "keeps_state": "use_sliding_window_kv_pool" in vars(backend)}


def _chain(fn) -> list:
    """The hooks in a method's wrapper chain, outermost first (by their closures)."""
    found = []
    while fn is not None:
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                content = cell.cell_contents
            except ValueError:
                continue
            if callable(content) and getattr(content, "__module__", "") in (
                    "runtime_guard.hooks", "__main__"):
                found.append(content.__name__)
        fn = getattr(fn, "__wrapped__", None)
    return found


def idempotent(sg) -> dict:
    """install() twice before the hooks are applied, with another plugin wrapping the same
    method; then a fresh registry and a plugin that forgot what it registered: each guard hook
    sits once in the chain, found through the other plugin's wrapper."""
    from runtime_guard import plugin
    from runtime_guard.config import read_config

    upstream = sg.TRTLLMHAAttnBackend
    target = f"{upstream.__module__}.TRTLLMHAAttnBackend.forward_decode"

    def other_plugin(original, *args, **kwargs):
        return original(*args, **kwargs)

    plugin.install(read_config())
    plugin.install(read_config())
    sg.HookRegistry.register(target, other_plugin, sg.HookType.AROUND)
    sg.HookRegistry.apply_hooks()
    first = _chain(vars(upstream)["forward_decode"])
    sg.HookRegistry.reset()
    plugin._registered.clear()
    _reload(sg)
    return {"first": first, "after": _chain(vars(upstream)["forward_decode"])}


def bad(sg) -> dict:
    sg.load_plugins()
    return {"loaded": True}


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s| %(message)s")
    kernel_shim.install()  # sgl_kernel only: lets the FlashAttention and XPU modules import
    sglang = sc.sglang()
    print(json.dumps(globals()[sys.argv[1]](sglang)))
