"""Host cost of the runtime guard per launch on the CPU: off vs check vs bounds, every backend.

Setting: a decode batch of 256 requests at 32k context, page size 64 (page tables 256 x 512),
on real SGLang objects built on the CPU (``SWAKVPool``, ``SWATokenToKVPoolAllocator``, the
fixed trtllm backend, ``RadixAttention`` layers, ``ForwardBatch``): a 36-layer hybrid model,
even layers sliding-window. The wrapped "launch" is an empty function, so the numbers are
the guard's own Python/torch host work. One forward = the metadata hook plus 36 launches;
bounds mode checks the two distinct page tables (SWA, full) once per forward.

A second table repeats check mode (and check + fix) for every backend class of
``runtime_guard.backends`` that imports here, on the same pools and batch (FlashAttention and
XPU through the test suite's ``sgl_kernel`` import shim; their kernels are never called).

Run: ``python benchmarks/guard_cost.py [--repeats N] [--smoke]``. Prints tables of medians.
Needs torch and SGLang (``pip install -r requirements/sglang-0.5.23.txt --no-deps``).
``--smoke`` runs a tiny shape (CI has no time for 8.4M-token pools); its numbers mean nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runtime_guard from this checkout

BATCH, CONTEXT, PAGE, LAYERS = 256, 32 * 1024, 64, 36
WINDOW = 4096  # SWA tokens kept per request
SMOKE = dict(BATCH=4, CONTEXT=256, PAGE=16, WINDOW=64)


def build(padded: bool = False):
    """Real pools and a fixed backend with decode metadata for the benchmark batch.

    ``padded``: requests of mixed lengths whose unread columns hold garbage (as
    ``torch.empty`` page tables do), so the bounds check must take its masked path.
    """
    from runtime_guard.demo import scenarios as sc
    import torch

    size, size_swa = BATCH * CONTEXT, BATCH * WINDOW
    pool = sc.swa_pool(
        size, size_swa, PAGE, head_dim=1,
        swa_layers=range(0, LAYERS, 2), full_layers=range(1, LAYERS, 2),
    )
    allocator = sc.swa_allocator(pool, size, size_swa, PAGE)
    runner = sc.runner(pool, allocator)
    runner.page_size = PAGE
    backend = sc.construct_backend(sc.fixed_backend_module().FixedTRTLLMHAAttnBackend, runner)
    pages = CONTEXT // PAGE
    seq = [CONTEXT - 1 - (r % PAGE) for r in range(BATCH)]
    full = (torch.arange(BATCH * pages, dtype=torch.int32) + 1).view(BATCH, pages)
    swa = full % (size_swa // PAGE)
    if padded:
        seq = [1 + (r * CONTEXT) // BATCH for r in range(BATCH)]
        for table in (full, swa):
            unread = torch.arange(pages).unsqueeze(0) >= (
                (torch.tensor(seq) + PAGE - 1) // PAGE
            ).unsqueeze(1)
            table.masked_fill_(unread, 2**30)
    sc.metadata(backend, seq, full, swa)
    batch = sc.decode_batch(pool, seq)
    layers = [sc.layer(i) for i in range(LAYERS)]
    q = torch.zeros(BATCH, 16, dtype=sc.DTYPE)
    return backend, batch, layers, q


def time_forward(hooks, backend, batch, layers, q, guarded: bool) -> float:
    """Seconds for one forward: metadata hook (when guarded) and one launch per layer."""
    def launch(*args, **kwargs):
        return None

    def metadata(*args, **kwargs):
        return None

    start = time.perf_counter()
    if guarded:
        hooks.guard_metadata(metadata, backend, batch)
        for layer in layers:
            hooks.guard_launch(launch, backend, q, None, None, layer, batch)
    else:
        metadata(backend, batch)
        for layer in layers:
            launch(backend, q, None, None, layer, batch)
    return time.perf_counter() - start


def _tests_on_path() -> None:
    """The test suite's helpers (``kernel_shim``, the written backend forms) become importable."""
    tests = str(Path(__file__).resolve().parents[1] / "tests" / "runtime")
    if tests not in sys.path:
        sys.path.insert(0, tests)


def _backend_classes() -> list:
    """(name, class) for every launching class of the table that imports here."""
    import importlib

    _tests_on_path()
    import kernel_shim

    from runtime_guard.backends import BACKENDS

    kernel_shim.install()
    found = []
    for spec in BACKENDS:
        try:
            cls = getattr(importlib.import_module(spec.module), spec.name)
        except Exception:  # noqa: BLE001 - e.g. Ascend without torch_npu: not measured
            continue
        if spec.launches and spec.state_attrs:
            found.append((spec.name, cls))
    return found


def measure_backends(repeats: int) -> dict:
    """Per backend class: µs per launch off, check, check + fix (same pools and batch)."""
    from runtime_guard import hooks
    from runtime_guard.config import GuardConfig
    from runtime_guard.demo import scenarios as sc

    trtllm, batch, layers, q = build()
    runner = trtllm.__dict__["_poolguard_runner"]
    results = {}
    for name, cls in _backend_classes():
        model_runner = sc.runner(batch.token_to_kv_pool, runner.allocator)
        model_runner.page_size = PAGE
        backend = sc.any_backend(cls, model_runner)
        backend.forward_metadata = trtllm.forward_metadata
        _as_served(backend)
        row = {}
        for mode, config in (("off", None), ("check", GuardConfig(mode="check")),
                             ("check + fix", GuardConfig(mode="check", fix=True))):
            hooks.configure(config or GuardConfig(mode="check"))
            args = (hooks, backend, batch, layers, q, config is not None)
            for _ in range(5):
                time_forward(*args)
            samples = [time_forward(*args) for _ in range(repeats)]
            row[mode] = statistics.median(samples) * 1e6 / LAYERS
        results[name] = row
    return results


GENERIC_CLASSES = ("QwenSparseAttnBackend", "TorchFlexAttnBackend")  # build whole on a CPU
# Correct classes of the test suite's forms, each exercising one of the generic check's rarer
# paths: a flag its code proves, records, inner backends in a dict, a record or a deque, class
# attributes, __slots__, sets, tensors a replay helper captured.
GENERIC_FORMS = (("blind_backends", "AllocatorResolverAttnBackend"),
                 ("blind_backends", "LiveWrapperAttnBackend"),
                 ("guard_forms", "WindowGeometryAttnBackend"),
                 ("guard_forms", "LiveDictWrapperAttnBackend"),
                 ("guard_forms", "CapabilityClassAttnBackend"),
                 ("guard_forms3", "LiveInnerRecordAttnBackend"),
                 ("guard_forms3", "SlotsGeometryAttnBackend"),
                 ("guard_forms4", "LiveDequeStepsAttnBackend"),
                 ("guard_forms4", "GeometrySetsAttnBackend"),
                 ("guard_forms4", "LiveGraphReplayAttnBackend"),
                 # Classes stale only under a pool swap, right on the target built here: the
                 # happy path of a string verdict, a registry behind a property, a partial's
                 # mapping argument, a __slots__ translator's table, containers three deep.
                 ("guard_forms7", "ForwardOverrideAttnBackend"),
                 ("guard_forms7", "RegistryEntryAttnBackend"),
                 ("guard_forms7", "PartialIndexSelectAttnBackend"),
                 ("guard_forms7", "SlotTranslatorAttnBackend"),
                 ("guard_forms7", "KernelTableExtendAttnBackend"),
                 # State outside the instance: a module ContextVar read through helpers, a
                 # pool set with global; a weak proxy in a record.
                 ("guard_forms10", "HelperContextVarPerForwardAttnBackend"),
                 ("guard_forms10", "ModuleGlobalPoolPerForwardAttnBackend"),
                 ("guard_forms10", "ProxyPerForwardAttnBackend"),
                 # a registry behind a getter computing its key; a verdict indexed by the test
                 ("guard_forms_indexed", "TupleKeyPropertyAttnBackend"),
                 ("guard_forms_indexed", "ModuleTupleVerdictAttnBackend"),
                 # a dict keyed by pools, a helper's own verdict, a module kernel table's
                 # pick, a function's default argument
                 ("guard_forms13", "LivePoolKeyedMemoAttnBackend"),
                 ("guard_forms13", "RebuiltBuilderVerdictAttnBackend"),
                 ("guard_forms13", "PerForwardKernelTableAttnBackend"),
                 ("guard_forms13", "DefaultArgGeometryAttnBackend"))


def measure_generic(repeats: int) -> dict:
    """The generic check (``runtime_guard.generic``) on SGLang classes no table row names, and
    its skip path on a table class: µs per launch through the dispatch hook vs the bare call."""
    import importlib

    from runtime_guard import generic, hooks
    from runtime_guard.config import GuardConfig
    from runtime_guard.demo import scenarios as sc

    trtllm, batch, layers, q = build()
    runner = sc.runner(batch.token_to_kv_pool, trtllm.__dict__["_poolguard_runner"].allocator)
    hooks.configure(GuardConfig(mode="check"))
    backends = {"TRTLLMHAAttnBackend (table class: skipped)": trtllm}
    for name in GENERIC_CLASSES:
        module = {"QwenSparseAttnBackend": "qwen_sparse_attn_backend",
                  "TorchFlexAttnBackend": "torch_flex_backend"}[name]
        try:
            cls = getattr(importlib.import_module(f"sglang.srt.layers.attention.{module}"), name)
        except Exception:  # noqa: BLE001 - absent on this release
            continue
        backend = sc.construct_backend(cls, runner)
        backend.__dict__.setdefault("token_to_kv_pool", batch.token_to_kv_pool)
        backends[_generic_label(name, backend)] = backend
    _tests_on_path()
    for module, name in GENERIC_FORMS:
        backend = getattr(importlib.import_module(module), name)(runner)
        backends[_generic_label(f"{name} (test form)", backend)] = backend

    def forward(*args, **kwargs):
        return None

    results = {}
    for name, backend in backends.items():
        _as_served(backend)
        row = {}
        for mode in ("off", "generic check"):
            call = (forward if mode == "off" else
                    lambda *a: generic.guard_dispatch(forward, *a))

            def run():
                start = time.perf_counter()
                for layer in layers:
                    call(backend, q, None, None, layer, batch)
                return time.perf_counter() - start

            for _ in range(5):
                run()
            row[mode] = statistics.median(run() for _ in range(repeats)) * 1e6 / LAYERS
        results[name] = row
    return results


def _as_served(backend) -> None:
    """Mark the class seen, as the first forward of a server does (``runtime_guard.late``):
    the hooks' steady state, one set lookup for late coverage."""
    from runtime_guard import seen

    seen.SEEN.add(type(backend))


def measure_context(repeats: int) -> Optional[float]:
    """µs per forward that late coverage's hook on ``set_forward_context`` adds (a forward
    publishes its backend and restores the previous context: two calls), class already seen;
    None on a release without ``forward_context`` (0.5.12: nothing there to hook)."""
    try:
        from sglang.srt.model_executor import forward_context as fc
    except ImportError:
        return None

    from runtime_guard import late

    backend, _, _, _ = build()
    _as_served(backend)
    ctx = fc.ForwardContext(attn_backend=backend)

    def run(call):
        start = time.perf_counter()
        for _ in range(LAYERS):
            call(fc.set_forward_context, ctx)
            call(fc.set_forward_context, None)
        return time.perf_counter() - start

    def bare(setter, value):
        return setter(value)

    times = {}
    for name, call in (("bare", bare), ("hooked", late.guard_context)):
        for _ in range(5):
            run(call)
        times[name] = statistics.median(run(call) for _ in range(repeats)) * 1e6 / LAYERS
    return times["hooked"] - times["bare"]


def _generic_label(name: str, backend) -> str:
    from runtime_guard import generic

    layout = generic.layout_of(backend, backend.__dict__.get("token_to_kv_pool"))
    slots = (len(layout.direct) + len(layout.nested) + len(layout.class_nested)
             + len(getattr(layout, "registries", ())) + len(getattr(layout, "outside", ())))
    flags = (len(layout.flags) + len(layout.soft) + len(layout.class_flags)
             + len(getattr(layout, "verdicts", ())) + len(getattr(layout, "nested_flags", ())))
    return f"{name} ({slots} pool slots, {flags} flags, {len(layout.inner)} inner)"


def print_generic(per_class: dict) -> None:
    print()
    print("generic check on AttentionBackend.forward (µs per launch, host work, same batch):")
    print()
    print("| backend | off | generic check | adds |")
    print("| --- | ---: | ---: | ---: |")
    worst = 0.0
    for name, row in per_class.items():
        added = row["generic check"] - row["off"]
        worst = max(worst, added)
        print(f"| {name} | {row['off']:.2f} | {row['generic check']:.2f} | {added:+.2f} |")
    print()
    print(f"generic check adds at most {worst:.2f} µs per launch "
          f"({'meets' if worst <= 2 else 'MISSES'} the <= 2 µs target).")


def measure(repeats: int) -> dict:
    from runtime_guard import hooks
    from runtime_guard.config import GuardConfig

    full_length = build()
    padded = build(padded=True)
    results = {}
    for mode, setup in (
        ("off", full_length), ("check", full_length), ("bounds", full_length),
        ("bounds, padded tables", padded),
    ):
        guarded = mode != "off"
        hooks.configure(GuardConfig(mode=mode.split(",")[0] if guarded else "check"))
        for _ in range(5):  # warm-up
            time_forward(hooks, *setup, guarded)
        samples = [time_forward(hooks, *setup, guarded) for _ in range(repeats)]
        results[mode] = statistics.median(samples) * 1e6
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=300, help="forwards timed per mode")
    parser.add_argument("--smoke", action="store_true", help="tiny shape, for CI")
    args = parser.parse_args(argv)
    if args.smoke:
        globals().update(SMOKE)
    try:
        import torch

        # One thread: the figure is host work per launch, and a shared CPU makes
        # multi-threaded elementwise ops noisy. On a GPU server these tensors live on the GPU.
        torch.set_num_threads(1)
        results = measure(args.repeats)
        per_backend = measure_backends(args.repeats)
        per_generic = measure_generic(args.repeats)
        per_context = measure_context(args.repeats)
    except ImportError as err:
        print(f"guard_cost: needs torch and SGLang: {err}", file=sys.stderr)
        return 2
    print(f"guard cost per launch, CPU host work: {BATCH} requests x {CONTEXT // 1024}k context, "
          f"page {PAGE} ({BATCH}x{CONTEXT // PAGE} page tables), {LAYERS} layers, "
          f"median of {args.repeats} forwards, 1 torch thread")
    print()
    print("| mode | µs per forward | µs per launch | added per launch vs off |")
    print("| --- | ---: | ---: | ---: |")
    off = results["off"]
    for mode, total in results.items():
        per_launch = total / LAYERS
        added = (total - off) / LAYERS
        print(f"| {mode} | {total:.1f} | {per_launch:.2f} | {added:+.2f} µs |")
    check_added = (results["check"] - off) / LAYERS
    verdict = "meets" if check_added < 5 else "MISSES"
    print()
    print(f"check mode adds {check_added:.2f} µs per launch: {verdict} the < 5 µs target.")
    for mode in ("bounds", "bounds, padded tables"):
        print(f"{mode}: {(results[mode] - results['check']):.0f} µs per forward over check "
              f"(the SWA and the full table, each checked once per forward).")
    print_backends(per_backend)
    print_generic(per_generic)
    print()
    if per_context is None:
        print("late coverage: this SGLang release has no set_forward_context to hook")
    else:
        print(f"late coverage (set_forward_context hook, class seen): {per_context:+.2f} µs per "
              "forward, not per launch")
    return 0


def print_backends(per_backend: dict) -> None:
    print()
    print("check mode per backend class (µs per launch, host work, same batch):")
    print()
    print("| backend | off | check | check + fix | check adds |")
    print("| --- | ---: | ---: | ---: | ---: |")
    worst = 0.0
    for name, row in per_backend.items():
        added = row["check"] - row["off"]
        worst = max(worst, added)
        print(f"| {name} | {row['off']:.2f} | {row['check']:.2f} | {row['check + fix']:.2f} "
              f"| {added:+.2f} |")
    print()
    print(f"worst backend: check adds {worst:.2f} µs per launch "
          f"({'meets' if worst < 5 else 'MISSES'} the < 5 µs target).")


if __name__ == "__main__":
    sys.exit(main())
