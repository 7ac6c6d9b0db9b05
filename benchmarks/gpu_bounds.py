"""Cost of the guard's bounds check against the real trtllm decode step (flashinfer XQA), on a GPU.

Shape: 256 requests x 32k context (32,767 tokens each), page 64 (256 x 512 page tables),
8 query heads / 1 KV head, head_dim 64 and 128, bf16; a full layer and a sliding-window
layer (window 4096) of a real SGLang 0.5.23 ``SWAKVPool``. The step is SGLang's own
``TRTLLMHAAttnBackend.forward_decode`` on metadata from its own ``init_forward_metadata``
(see ``gpu_sglang`` for what is substituted). The check is
``runtime_guard.bounds.assert_page_bounds_async`` on the table that layer's launch reads:
one fused Triton kernel plus one ``torch._assert_async`` (no host sync, capturable).

Per row, measured in the same run, in alternating loops: the step alone and check + step,
eager and as CUDA-graph replays (one graph per variant); the check alone as the replay of a
graph of 20 checks; and, for reference, the host check (one device sync) in front of the
step. Per forward, the guard checks each distinct table once (SWA and full), so its cost
is 2 checks against a 36-layer step (18 full + 18 SWA layers here).
``--sanitizer`` times the step under ``compute-sanitizer --tool memcheck`` (if installed).

Run: ``python benchmarks/gpu_bounds.py``. Without CUDA it runs a tiny CPU smoke version
(torch stand-in kernel, torch bounds path), which is not a measurement.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys

import gpu_sglang as gs

SHAPE = dict(batch=256, context=32 * 1024, page=64, window=4096)
SMOKE = gs.Geometry(batch=4, context=512, page=16, window=128, head_dim=16)
SWA_LAYER, FULL_LAYER, LAYERS = 0, 1, 36
CHECKS_PER_GRAPH = 20


def setup(sg, geo: gs.Geometry, device: str):
    """The target's backend with decode metadata, and the query, for one head_dim."""
    import torch

    target, allocator, req_to_token = gs.target_pool(sg, geo, device)
    runner = gs.model_runner(target, allocator, req_to_token, geo, device, draft=False)
    backend = gs.complete_backend(sg, sg.TRTLLMHAAttnBackend, runner, geo, device)
    seq_lens = torch.full((geo.batch,), geo.context - 1, dtype=torch.int32, device=device)
    batch = gs.decode_batch(target, seq_lens, runner)
    gs.init_metadata(backend, batch, geo)
    q = torch.randn(geo.batch, gs.Q_HEADS * geo.head_dim, device=device).to(torch.bfloat16)
    return target, backend, batch, q


def layer_calls(backend, target, batch, q, geo: gs.Geometry, layer_id: int):
    """(step, device check, host check) for one layer's launch."""
    from runtime_guard import bounds

    layer = gs.attention_layer(layer_id, geo, sliding=layer_id == SWA_LAYER)
    table = backend._get_layer_page_table(layer, batch)
    seq_lens = backend.forward_metadata.cache_seqlens_int32
    num_pages = target.get_kv_buffer(layer_id)[0].shape[0] // geo.page
    message = f"poolguard: layer {layer_id}: page index out of bounds"

    def step():
        return backend.forward_decode(q, None, None, layer, batch, save_kv_cache=False)

    def device_check():
        bounds.assert_page_bounds_async(table, seq_lens, geo.page, num_pages, message)

    def host_check():
        assert bounds.find_bounds_problem(table, seq_lens, geo.page, num_pages) is None

    import torch

    rows, width = table.shape
    state = torch.zeros(3, dtype=torch.int32, device=table.device)
    block = min(1024, max(16, 1 << max(width - 1, 0).bit_length()))
    triton_args = (table, seq_lens, state, min(rows, seq_lens.shape[0]), width, table.stride(0),
                   table.stride(1), geo.page, num_pages, 0)

    def triton_launch():  # the same kernel through Triton's kernel[grid](...), as before
        bounds.fused_kernel()[(triton_args[3],)](*triton_args, BLOCK=block, ASSERT=True,
                                                 MESSAGE=bounds.DEVICE_MESSAGE)

    return step, device_check, host_check, triton_launch


def captured(body):
    """A CUDA graph of ``body`` (warmed up on a side stream, as capture requires)."""
    import torch

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            body()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        body()
    torch.cuda.synchronize()
    return graph


def measure_layer(calls, device: str, iters: int, repeats: int) -> dict:
    step, device_check, host_check, triton_launch = calls

    def checked():
        device_check()
        return step()

    def host_checked():
        host_check()
        return step()

    row = {}
    row["eager_step"], row["eager_checked"] = gs.paired_us(step, checked, device, iters, repeats)
    row["host_checked"] = gs.median_us(host_checked, device, iters, repeats)
    row["eager_check_alone"] = gs.median_us(device_check, device, iters, repeats)
    if device == "cuda":
        row["eager_triton_launch"] = gs.median_us(triton_launch, device, iters, repeats)
    if device == "cuda":
        plain, guarded = captured(step), captured(checked)
        row["graph_step"], row["graph_checked"] = gs.paired_us(
            plain.replay, guarded.replay, device, iters, repeats)
        many = captured(lambda: [device_check() for _ in range(CHECKS_PER_GRAPH)])
        row["check_alone"] = gs.median_us(many.replay, device, iters, repeats) / CHECKS_PER_GRAPH
    return row


def measure(sg, head_dims, device: str, iters: int, repeats: int, smoke: bool) -> list:
    rows = []
    for head_dim in head_dims:
        geo = SMOKE if smoke else gs.Geometry(head_dim=head_dim, **SHAPE)
        target, backend, batch, q = setup(sg, geo, device)
        for layer_id, kind in ((FULL_LAYER, "full"), (SWA_LAYER, "SWA")):
            calls = layer_calls(backend, target, batch, q, geo, layer_id)
            row = measure_layer(calls, device, iters, repeats)
            rows.append(dict(row, head_dim=geo.head_dim, layer=kind))
        del target, backend, batch, q
    return rows


def launcher_agreement(device: str, cases: int = 200) -> str:
    """Verdicts of the fused kernel (direct launcher after the first launch of each variant)
    against the host check, on random tables: int32/int64, contiguous and strided, in and out
    of bounds, short rows, more requests than rows."""
    import torch

    from runtime_guard import bounds

    generator = torch.Generator().manual_seed(0)
    agree = 0
    for case in range(cases):
        rows, width = int(torch.randint(1, 40, (1,), generator=generator)), 1 + case % 70
        pages = int(torch.randint(1, 5000, (1,), generator=generator))
        table = torch.randint(0, pages, (rows, width), generator=generator)
        table = table.to(torch.int32 if case % 3 else torch.int64)
        lens = torch.randint(0, width * 16 + 1, (rows + (case % 11 == 0),), generator=generator)
        if case % 2:
            table[int(torch.randint(0, rows, (1,), generator=generator)), 0] = pages + case % 5
        if case % 5 == 0:  # a strided view
            table = torch.cat([table, table], 1)[:, ::2]
        table, lens = table.to(device), lens.to(device=device, dtype=torch.int32)
        verdict = int(bounds.launch_fused_check(table, lens, 16, pages)[0])
        agree += verdict == (bounds.find_bounds_problem(table, lens, 16, pages) is None)
    return (f"direct launcher: {agree} of {cases} random tables agree with the host check; "
            f"{bounds.fused_check_status()}")


def report(rows: list, title: str) -> None:
    print(title)
    print()
    print("| head_dim | layer | mode | step µs | step + check µs | check µs | check / step |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        modes = [("eager, device assert", r["eager_step"], r["eager_checked"]),
                 ("eager, host check (debug)", r["eager_step"], r["host_checked"])]
        if "graph_step" in r:
            modes.insert(1, ("CUDA-graph replay", r["graph_step"], r["graph_checked"]))
        for mode, step, checked in modes:
            extra = checked - step
            print(f"| {r['head_dim']} | {r['layer']} | {mode} | {step:.1f} | {checked:.1f} | "
                  f"{extra:+.1f} | {extra / step:+.2%} |")
    print()
    print("Step µs is timed in the same alternating loops as step + check, per row and mode "
          "(the eager host-check row reuses the eager step of its layer).")
    _report_per_forward(rows)


def _report_per_forward(rows: list) -> None:
    if not all("check_alone" in r for r in rows):
        return
    print()
    print(f"| head_dim | check alone µs (graph of {CHECKS_PER_GRAPH}) | check alone µs (eager "
          f"loop: host launch, direct launcher) | same kernel via Triton's kernel[grid] µs | "
          f"2 checks per forward µs | {LAYERS}-layer step µs "
          f"({LAYERS // 2} full + {LAYERS // 2} SWA, graph) | per forward |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for head_dim in sorted({r["head_dim"] for r in rows}):
        pair = {r["layer"]: r for r in rows if r["head_dim"] == head_dim}
        check = max(r["check_alone"] for r in pair.values())
        forward = LAYERS // 2 * (pair["full"]["graph_step"] + pair["SWA"]["graph_step"])
        eager = max(r["eager_check_alone"] for r in pair.values())
        triton = max(r.get("eager_triton_launch", float("nan")) for r in pair.values())
        print(f"| {head_dim} | {check:.2f} | {eager:.1f} | {triton:.1f} | {2 * check:.2f} | "
              f"{forward:.0f} | {2 * check / forward:.3%} |")


def sanitizer_probe(head_dim: int, steps: int) -> None:
    """Time the full-layer step (in this process; run under compute-sanitizer)."""
    sg, _ = gs.stack()
    geo = gs.Geometry(head_dim=head_dim, **SHAPE)
    target, backend, batch, q = setup(sg, geo, "cuda")
    step = layer_calls(backend, target, batch, q, geo, FULL_LAYER)[0]
    print(json.dumps({"step_us": gs.median_us(step, "cuda", 1, steps)}))


def eager_full_step(sg, head_dim: int, iters: int, repeats: int) -> float:
    """The eager full-layer step alone (the baseline of the memcheck row)."""
    geo = gs.Geometry(head_dim=head_dim, **SHAPE)
    target, backend, batch, q = setup(sg, geo, "cuda")
    step = layer_calls(backend, target, batch, q, geo, FULL_LAYER)[0]
    return gs.median_us(step, "cuda", iters, repeats)


def sanitizer_row(base: float, head_dim: int, steps: int, timeout: int) -> None:
    """The memcheck slowdown of the eager full-layer step, against ``base`` µs."""
    tool = shutil.which("compute-sanitizer")
    if tool is None:
        print("\ncompute-sanitizer: not installed on this host; no memcheck row.")
        return
    command = [tool, "--tool", "memcheck", sys.executable, __file__, "--sanitizer-probe",
               "--head-dim", str(head_dim), "--steps", str(steps)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"\ncompute-sanitizer memcheck: over {timeout} s, no figure.")
        return
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        print(f"\ncompute-sanitizer memcheck failed: {done.stdout[-300:]} {done.stderr[-300:]}")
        return
    slow = json.loads(lines[-1])["step_us"]
    print("\n| head_dim | layer | step µs | step under compute-sanitizer memcheck µs | slowdown |")
    print("| ---: | --- | ---: | ---: | ---: |")
    print(f"| {head_dim} | full | {base:.1f} | {slow:.0f} | {slow / base:.0f}x |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--head-dim", type=int, action="append")
    parser.add_argument("--smoke", action="store_true", help="tiny CPU shape, even with CUDA")
    parser.add_argument("--sanitizer", action="store_true", help="add the memcheck row")
    parser.add_argument("--sanitizer-only", action="store_true", help="only the memcheck row")
    parser.add_argument("--sanitizer-timeout", type=int, default=300)
    parser.add_argument("--sanitizer-probe", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args(argv)
    import torch

    head_dims = args.head_dim or [64, 128]
    if args.sanitizer_probe:
        sanitizer_probe(head_dims[0], args.steps)
        return 0
    sg, kernel = gs.stack()
    if not torch.cuda.is_available() or args.smoke:
        print("gpu_bounds: no CUDA device used; CPU smoke run at a tiny shape, not a "
              "measurement of the target.")
        report(measure(sg, [SMOKE.head_dim], "cpu", 3, 3, smoke=True), f"CPU smoke ({kernel})")
        return 0
    from runtime_guard import bounds

    if args.sanitizer_only:
        base = eager_full_step(sg, head_dims[0], args.iters, args.repeats)
        sanitizer_row(base, head_dims[0], args.steps, args.sanitizer_timeout)
        return 0
    title = (f"bounds check vs the real decode step ({kernel}) on {torch.cuda.get_device_name()}"
             f": 256 requests x 32k context, page 64, 8 q heads / 1 KV head, bf16; medians of "
             f"{args.repeats} x {args.iters} calls")
    rows = measure(sg, head_dims, "cuda", args.iters, args.repeats, smoke=False)
    report(rows, title)
    print(f"\nDevice check path: {bounds.fused_check_status()}")
    print(launcher_agreement("cuda"))
    if args.sanitizer:
        base = next(r["eager_step"] for r in rows
                    if r["head_dim"] == head_dims[0] and r["layer"] == "full")
        sanitizer_row(base, head_dims[0], args.steps, args.sanitizer_timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
