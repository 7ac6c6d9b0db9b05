"""Cost of ``SGLANG_POOLGUARD=check`` per launch against the real decode step (flashinfer XQA),
on a GPU: for a table class (SGLang's ``TRTLLMHAAttnBackend``, its row's check) and for a class
no table names (``gpu_generic.LiveSwaXqaAttnBackend``, the generic check on
``AttentionBackend.forward``).

Shape: 256 requests x 32k context, page 64, 8 query heads / 1 KV head, head_dim 128, bf16, a
sliding-window (4096) and a full layer of a real SGLang 0.5.23 ``SWAKVPool`` (target role).
The plugin is loaded by SGLang's own ``load_plugins()`` with ``SGLANG_POOLGUARD=check``. Per
row, in alternating loops: the launch through the hooked method and through the same method
unwrapped (``__wrapped__`` down to SGLang's own code), eager, synchronised per loop of 50
launches; and the check alone on the host (the function the hook calls, median of 2000). A
36-layer forward (18 SWA + 18 full) pays 36 checks.

Run: ``python benchmarks/gpu_generic_cost.py``. Without CUDA it runs a tiny CPU smoke version
(torch stand-in kernel; also with ``--smoke``), which is not a measurement.
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import time

import gpu_sglang as gs

FULL = gs.Geometry(batch=256, context=32 * 1024, page=64, window=4096, head_dim=128)
SMOKE = gs.Geometry(batch=2, context=256, page=16, window=64, head_dim=16)
SWA_LAYER, FULL_LAYER, LAYERS = 0, 1, 36


def bare(method):
    """``method`` without the hooks wrapped around it: down its ``__wrapped__`` chain to the
    first function whose code is SGLang's attention code."""
    return inspect.unwrap(method, stop=lambda f: "/sglang/srt/layers/" in getattr(
        getattr(f, "__code__", None), "co_filename", "/sglang/srt/layers/"))


def setup(sg, geo: gs.Geometry, device: str):
    """(label, backend, hooked launch, bare launch, host check) for the two classes."""
    import gpu_generic
    import torch

    from runtime_guard import checks, generic
    from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

    target, allocator, req_to_token = gs.target_pool(sg, geo, device)
    runner = gs.model_runner(target, allocator, req_to_token, geo, device, draft=False)
    seq_lens = torch.full((geo.batch,), geo.context - 1, dtype=torch.int32, device=device)
    batch = gs.decode_batch(target, seq_lens, runner)
    table_class = sg.trtllm_mha_backend.TRTLLMHAAttnBackend
    trtllm = gs.complete_backend(sg, table_class, runner, geo, device)
    live = gpu_generic.classes(sg)[1](runner, geo)
    rows = []
    for label, backend, hooked, plain, check in (
        ("TRTLLMHAAttnBackend (table row)", trtllm, table_class.forward_decode,
         bare(table_class.forward_decode), checks.find_backend_problem),
        ("LiveSwaXqaAttnBackend (no table row: generic)", live, AttentionBackend.forward,
         bare(AttentionBackend.forward), generic.find_generic_problem),
    ):
        if hooked is plain:
            raise SystemExit(f"gpu_generic_cost: {label}: not hooked (is the plugin installed?)")
        gs.init_metadata(backend, batch, geo)
        rows.append((label, backend, hooked, plain, check))
    return batch, rows


def host_us(fn, n: int = 2000) -> float:
    for _ in range(50):
        fn()
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(samples)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny shape on the CPU")
    args = parser.parse_args(argv)
    import torch

    os.environ.setdefault("SGLANG_POOLGUARD", "check")
    device = "cuda" if torch.cuda.is_available() and not args.smoke else "cpu"
    geo = FULL if device == "cuda" else SMOKE
    sg, kernel = gs.stack()
    sg.load_plugins()
    batch, rows = setup(sg, geo, device)
    iters, repeats = (50, 15) if device == "cuda" else (2, 2)
    print(f"SGLANG_POOLGUARD={os.environ['SGLANG_POOLGUARD']} per launch vs the decode step "
          f"({kernel}) on {torch.cuda.get_device_name() if device == 'cuda' else 'CPU (smoke)'}: "
          f"{geo.batch} requests x {geo.context // 1024}k context, page {geo.page}, head_dim "
          f"{geo.head_dim}, bf16; eager, medians of {repeats} x {iters} launches")
    print()
    print("| backend | layer | step µs (unhooked) | step µs (hooked) | adds "
          "| check alone, host µs |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    per_forward = {}
    for label, backend, hooked, plain, check in rows:
        steps = {}
        for layer_id in (SWA_LAYER, FULL_LAYER):
            layer = gs.attention_layer(layer_id, geo, sliding=layer_id == SWA_LAYER)
            q = torch.randn(geo.batch, gs.Q_HEADS * geo.head_dim, device=device).to(
                torch.bfloat16)
            args = (backend, q, None, None, layer, batch)
            off, on = gs.paired_us(lambda: plain(*args, save_kv_cache=False),
                                   lambda: hooked(*args, save_kv_cache=False),
                                   device, iters, repeats)
            alone = host_us(lambda: check(backend, layer_id, batch))
            steps[layer_id] = (off, on, alone)
            kind = "SWA" if layer_id == SWA_LAYER else "full"
            print(f"| {label} | {kind} | {off:.1f} | {on:.1f} | {on - off:+.1f} "
                  f"({(on - off) / off:+.2%}) | {alone:.2f} |")
        per_forward[label] = steps
    print()
    print(f"| backend | {LAYERS}-layer step µs (eager, unhooked) | {LAYERS} checks, host µs "
          "| checks / step | measured step delta |")
    print("| --- | ---: | ---: | ---: | ---: |")
    half = LAYERS // 2
    for label, steps in per_forward.items():
        step = half * (steps[SWA_LAYER][0] + steps[FULL_LAYER][0])
        checks = half * (steps[SWA_LAYER][2] + steps[FULL_LAYER][2])
        delta = half * sum(steps[k][1] - steps[k][0] for k in steps)
        print(f"| {label} | {step:.0f} | {checks:.0f} | {checks / step:.2%} | "
              f"{delta:+.0f} µs ({delta / step:+.2%}) |")
    print()
    print("Host µs is what the CPU spends before the launch is queued; with the GPU busy it "
          "overlaps the previous kernel, so the measured step delta can be smaller.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
