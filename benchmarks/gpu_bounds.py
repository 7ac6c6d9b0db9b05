"""Cost of the guard's bounds check against a paged decode attention step, on a GPU.

How to run it on the H200 device (the lead's run; device time is scarce):
  1. Bring SGLang 0.5.23 and its pure-Python import set as cp312 wheels (see
     /work/shared/gpu-bench.md), install them on the device with
     ``pip install --no-index --no-deps --target /tmp/sgl <wheels>``.
  2. From the repository root: ``python benchmarks/gpu_bounds.py --sglang-dir /tmp/sgl``.
The script prints one table (medians, fractions). On a machine without CUDA it says so,
skips the GPU rows and runs the same code at a tiny shape on the CPU as a smoke test.

What is measured, at the decode shape of 256 requests x 32k context, page size 64
(256 x 512 page tables), on real SGLang ``SWAKVPool``/``SWATokenToKVPoolAllocator`` buffers
on the GPU and a real fixed trtllm backend object driving the guard's own hook path:
  * step: a paged decode attention over the full-attention layer's real K/V buffers,
    written in torch (flashinfer's trtllm/XQA kernels are not on the benchmark host); one
    KV head of 64 dims keeps the pool near 5 GB, so the step is far cheaper than a real
    model's (8 KV heads x 128 dims reads ~16x more) and the fractions are upper bounds;
  * step + bounds: the same with ``runtime_guard.hooks.guard_launch`` in bounds mode in
    front, a new forward each time (so the table is checked every step);
  * eager with the default host check (one device sync), eager with the device assert
    (``SGLANG_ENABLE_ASYNC_ASSERT=1``), and both captured in one CUDA graph and replayed
    (the guard records its device assert at capture; no host work at replay).
A forward checks each distinct table once (SWA and full), however many layers it has,
so per layer the cost shrinks by about layers / 2 from what is shown.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # runtime_guard from this checkout

BATCH, CONTEXT, PAGE, WINDOW = 256, 32 * 1024, 64, 4096
Q_HEADS, HEAD_DIM = 8, 64  # one KV head, grouped-query: 8 query heads share it
SMOKE = dict(batch=4, context=512, page=16, window=128)


def build(device: str, batch: int, context: int, page: int, window: int):
    """Real SGLang pools on ``device`` and a fixed backend primed with decode metadata."""
    from runtime_guard.demo import scenarios as sc
    import torch

    size, size_swa = batch * context, batch * window
    pool = sc.swa_pool(size, size_swa, page, device, head_dim=HEAD_DIM,
                       swa_layers=[0], full_layers=[1])
    allocator = sc.swa_allocator(pool, size, size_swa, page)
    runner = sc.runner(pool, allocator)
    runner.page_size = page
    backend = sc.construct_backend(sc.fixed_backend_module().FixedTRTLLMHAAttnBackend, runner)
    pages = context // page
    full = (torch.arange(batch * pages, dtype=torch.int32, device=device) + 1).view(batch, pages)
    meta = sc.metadata(backend, [context - 1] * batch, full, full % (size_swa // page))
    meta.cache_seqlens_int32 = meta.cache_seqlens_int32.to(device)
    batch_obj = sc.decode_batch(pool, [context - 1] * batch)
    k_buf, v_buf = pool.get_kv_buffer(1)
    q = torch.randn(batch, Q_HEADS, HEAD_DIM, dtype=k_buf.dtype, device=device)
    return backend, batch_obj, sc.layer(1), q, k_buf, v_buf, full, meta.cache_seqlens_int32


def paged_decode(q, k_buf, v_buf, page_table, seq_lens, page: int):
    """One decode attention step over paged K/V (reference for trtllm's decode kernel)."""
    import torch

    batch, pages = page_table.shape
    k = k_buf.view(-1, page, HEAD_DIM)[page_table].view(batch, pages * page, HEAD_DIM)
    v = v_buf.view(-1, page, HEAD_DIM)[page_table].view(batch, pages * page, HEAD_DIM)
    scores = torch.einsum("bhd,btd->bht", q, k).float() * HEAD_DIM ** -0.5
    positions = torch.arange(pages * page, device=q.device)
    scores.masked_fill_(positions.view(1, 1, -1) >= seq_lens.view(-1, 1, 1), float("-inf"))
    return torch.einsum("bht,btd->bhd", scores.softmax(-1).to(v.dtype), v)


def timed(fn, sync, iters: int, repeats: int) -> float:
    """Median wall-clock µs per call, synchronising at the end of each repeat."""
    for _ in range(3):
        fn()
    sync()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        sync()
        samples.append((time.perf_counter() - start) / iters * 1e6)
    return statistics.median(samples)


def measure(device: str, shape: dict, iters: int, repeats: int) -> list:
    import torch

    from runtime_guard import hooks
    from runtime_guard.config import GuardConfig

    backend, batch, layer, q, k_buf, v_buf, table, seq_lens = build(device, **shape)
    page = shape["page"]
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)

    def step():
        return paged_decode(q, k_buf, v_buf, table, seq_lens, page)

    def guarded_step():
        hooks.guard_metadata(lambda *a, **k: None, backend, batch)  # a new forward
        return hooks.guard_launch(lambda *a, **k: step(), backend, q, None, None, layer, batch)

    hooks.configure(GuardConfig(mode="bounds"))
    rows = []
    for label, async_assert in (("eager, host check", False), ("eager, device assert", True)):
        if async_assert and device != "cuda":
            continue
        os.environ["SGLANG_ENABLE_ASYNC_ASSERT"] = "1" if async_assert else "0"
        rows.append((label, timed(step, sync, iters, repeats),
                     timed(guarded_step, sync, iters, repeats)))
    if device == "cuda":
        rows.append(("CUDA graph replay", *graph_times(step, guarded_step, sync, iters, repeats)))
    return rows


def graph_times(step, guarded_step, sync, iters: int, repeats: int):
    """Replay time of the step captured alone and with the guard captured in front of it."""
    import torch

    results = []
    for body in (step, guarded_step):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                body()  # warm-up on a side stream, as capture requires
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            body()
        results.append(timed(graph.replay, sync, iters, repeats))
    return results


def report(title: str, rows: list) -> None:
    print(title)
    print()
    print("| setting | step µs | step + bounds µs | bounds µs | bounds / step |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, alone, guarded in rows:
        extra = guarded - alone
        print(f"| {label} | {alone:.1f} | {guarded:.1f} | {extra:.1f} | {extra / alone:.2%} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sglang-dir", help="a --target folder holding SGLang and its deps")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    if args.sglang_dir:
        sys.path.insert(0, args.sglang_dir)
    try:
        import torch
        from runtime_guard.demo import scenarios

        scenarios.sglang()
    except ImportError as err:
        print(f"gpu_bounds: needs torch and SGLang: {err}", file=sys.stderr)
        return 2
    import sglang

    print(f"torch {torch.__version__}, SGLang {sglang.__version__}")
    if torch.cuda.is_available():
        name = torch.cuda.get_device_name()
        rows = measure("cuda", dict(batch=BATCH, context=CONTEXT, page=PAGE, window=WINDOW),
                       args.iters, args.repeats)
        report(f"bounds check vs paged decode step on {name}: {BATCH} requests x "
               f"{CONTEXT // 1024}k context, page {PAGE}, {Q_HEADS} q heads / 1 KV head x "
               f"{HEAD_DIM}; medians of {args.repeats} x {args.iters} calls", rows)
        return 0
    print("gpu_bounds: no CUDA device here; GPU rows skipped. CPU smoke run at a tiny shape "
          f"({SMOKE}), not a measurement of the target:")
    report("CPU smoke", measure("cpu", SMOKE, 3, 3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
