"""Host cost of one launch of the fused bounds kernel on a GPU, broken down.

Times, per launch, host work only (a loop of launches with no sync inside, the device being far
from its queue limit): a one-kernel torch op for scale, the kernel through Triton's
``kernel[grid](...)``, through the compiled kernel's launcher, through
``runtime_guard.bounds.assert_page_bounds_async`` and ``launch_fused_check``; then a profile of
the guard's call. Run: ``python benchmarks/gpu_launch_cost.py`` on a CUDA host.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def host_us(fn, calls: int = 200, repeats: int = 41) -> float:
    """Host µs per call: the loop is timed before the sync, and short enough (200 launches)
    that the device's launch queue never fills, so the device's speed does not enter."""
    import torch

    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(samples)


def device_us(fn, calls: int = 2000) -> float:
    """Wall µs per call over many calls with a sync at the end (the slower of host and device)."""
    import torch

    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def main() -> int:
    import torch

    from runtime_guard import bounds

    rows, width, pages = 256, 512, 131073
    table = (torch.arange(rows * width, dtype=torch.int32, device="cuda") % pages).view(rows, width)
    lens = torch.full((rows,), width * 64 - 1, dtype=torch.int32, device="cuda")
    state = torch.zeros(3, dtype=torch.int32, device="cuda")
    message = "poolguard: out of bounds"
    args = (table, lens, state, rows, width, width, 1, 64, pages, 0)

    def triton_path():
        bounds.fused_kernel()[(rows,)](*args, BLOCK=512, ASSERT=True, MESSAGE=bounds.DEVICE_MESSAGE)

    compiled = bounds.fused_kernel()[(rows,)](*args, BLOCK=512, ASSERT=True,
                                              MESSAGE=bounds.DEVICE_MESSAGE)
    from triton.runtime import driver

    stream = driver.active.get_current_stream(torch.cuda.current_device())
    full = args + (512, True, bounds.DEVICE_MESSAGE)

    def direct():
        compiled.run(rows, 1, 1, stream, compiled.function, compiled.packed_metadata, None,
                     None, None, *full)

    named = [
        ("torch: state.zero_() (one kernel)", lambda: state.zero_()),
        ("Triton kernel[grid](...)", triton_path),
        ("compiled.run(...) with prepared args", direct),
        ("bounds.assert_page_bounds_async", lambda: bounds.assert_page_bounds_async(
            table, lens, 64, pages, message)),
        ("bounds.launch_fused_check (verdict form)", lambda: bounds.launch_fused_check(
            table, lens, 64, pages)),
    ]
    fns = [fn for _, fn in named]
    rows_out = [(name, host_us(fn)) for name, fn in named]
    meta = compiled.metadata
    print(f"kernel metadata: global_scratch_size={getattr(meta, 'global_scratch_size', '?')} "
          f"profile_scratch_size={getattr(meta, 'profile_scratch_size', '?')} "
          f"launch_pdl={getattr(meta, 'launch_pdl', '?')} "
          f"launch_cooperative_grid={getattr(meta, 'launch_cooperative_grid', '?')} "
          f"run={type(compiled.run).__name__}")
    print("| launch | host µs per launch | wall µs per launch, 2000 in a row |")
    print("| --- | ---: | ---: |")
    for (name, value), fn in zip(rows_out, fns):
        print(f"| {name} | {value:.2f} | {device_us(fn):.2f} |")
    print(bounds.fused_check_status())
    for name, fn in (("guard", lambda: bounds.assert_page_bounds_async(
            table, lens, 64, pages, message)), ("direct", direct)):
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(2000):
            fn()
        profile.disable()
        torch.cuda.synchronize()
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(10)
        print(name, out.getvalue()[-2500:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
