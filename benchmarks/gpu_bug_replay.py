"""SGLang #26957 on real hardware: a FROZEN_KV MTP draft's trtllm backend feeds full-pool page
ids to flashinfer's XQA decode kernel over the target's SWA buffer. Each case runs in its own
process, with the plugin loaded by SGLang's own ``load_plugins()`` from the environment:

  unguarded      pre-fix backend, no guard: CUDA error or silently wrong output, against a
                 reference launch on the correctly translated SWA table of the target pool
  bounds         SGLANG_POOLGUARD=bounds: SWAPoolMismatchError before the launch; a correct
                 launch afterwards still succeeds (the CUDA context is intact)
  fix            SGLANG_POOLGUARD_FIX=1: the output equals the reference
  off-by-one     a correct backend, one page index one past the full layer's buffer (the
                 metadata's page table): missed by SGLANG_POOLGUARD=check, whose checks are
                 about pool identity, caught by SGLANG_POOLGUARD=bounds (host check:
                 SWAPoolMismatchError), and with SGLANG_ENABLE_ASYNC_ASSERT=1 by the fused
                 kernel's device assert (fatal to the CUDA context, as device asserts are)
  generic        the same bug in a backend class no poolguard table names
                 (``gpu_generic.CachedSwaXqaAttnBackend``, same kernel): unguarded it fails
                 like the table class; under SGLANG_POOLGUARD=check the generic check on
                 ``AttentionBackend.forward`` refuses it before the launch; the correct
                 ``LiveSwaXqaAttnBackend`` under check launches and equals the reference
  SGLang's aids  the same launches under SGLANG_ENABLE_ASYNC_ASSERT=1 (its async out-of-
                 bounds probes, on KV writes only), SGLANG_INVARIANT_CHECK=2 (strict), and
                 compute-sanitizer memcheck (the device's own view of each bad read)

Setting: real SGLang 0.5.23 ``SWAKVPool`` + ``SWATokenToKVPoolAllocator`` on the device
(target; layer 0 sliding-window, layer 1 full), the draft's own ``MHATokenToKVPool``, SGLang's
``frozen_kv_target_view`` swapping the target pool in, and the backend's own
``forward_decode`` (see ``gpu_sglang`` for what is substituted). The pre-fix backend is
SGLang 0.5.23's class with the pre-#26966 resolver (``runtime_guard.demo.scenarios``).

Run: ``python benchmarks/gpu_bug_replay.py`` (all cases, one table; ``--case NAME`` runs one
in this process). Without CUDA it runs a tiny CPU smoke version of every case.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import gpu_sglang as gs

FULL = gs.Geometry(batch=256, context=32 * 1024, page=64, window=4096, head_dim=128)
SMOKE = gs.Geometry(batch=2, context=256, page=16, window=64, head_dim=16)
MEMCHECK = ("compute-sanitizer", "--tool", "memcheck")
CASES = {  # name -> (environment, backend kind, corrupt one page[, command prefix])
    "unguarded": ({}, "pre-fix", False),
    # SGLang's own aids on the same launches (side by side with poolguard's modes)
    "unguarded, SGLang async assert": ({"SGLANG_ENABLE_ASYNC_ASSERT": "1"}, "pre-fix", False),
    "unguarded, SGLang invariant check": ({"SGLANG_INVARIANT_CHECK": "2"}, "pre-fix",
                                          False),
    "unguarded, compute-sanitizer": ({}, "pre-fix", False, MEMCHECK),
    "bounds": ({"SGLANG_POOLGUARD": "bounds"}, "pre-fix", False),
    "fix": ({"SGLANG_POOLGUARD_FIX": "1"}, "pre-fix", False),
    "off-by-one, check": ({"SGLANG_POOLGUARD": "check"}, "correct", True),
    "off-by-one, bounds": ({"SGLANG_POOLGUARD": "bounds"}, "correct", True),
    "off-by-one, bounds, device assert": (
        {"SGLANG_POOLGUARD": "bounds", "SGLANG_ENABLE_ASYNC_ASSERT": "1"}, "correct", True),
    "off-by-one, SGLang async assert": ({"SGLANG_ENABLE_ASYNC_ASSERT": "1"}, "correct", True),
    "off-by-one, SGLang invariant check": ({"SGLANG_INVARIANT_CHECK": "2"}, "correct",
                                           True),
    "off-by-one, compute-sanitizer": ({}, "correct", True, MEMCHECK),
    # the same bug in a class no table names: the generic check on AttentionBackend.forward
    "generic, unguarded": ({}, "generic-stale", False),
    "generic, check": ({"SGLANG_POOLGUARD": "check"}, "generic-stale", False),
    "generic, correct class, check": ({"SGLANG_POOLGUARD": "check"}, "generic-live", False),
}
GENERIC = ("generic-stale", "generic-live")
SGLANG_AIDS = ("SGLANG_ENABLE_ASYNC_ASSERT", "SGLANG_INVARIANT_CHECK")
SWA_LAYER, FULL_LAYER = 0, 1
BAD_ROW = 1  # the request whose last page is corrupted in the off-by-one cases


def load_guard(sg) -> str:
    """SGLang's own plugin loading, as a server start does; returns which plugins loaded."""
    from importlib.metadata import entry_points

    names = [ep.name for ep in entry_points(group="sglang.srt.plugins")]
    if "poolguard" not in names:
        raise SystemExit("gpu_bug_replay: the poolguard entry point is not installed")
    sg.load_plugins()
    return ",".join(names)


def backend_class(sg, kind: str):
    """The pre-fix class, SGLang's current class (replaced when the fix is installed), or one
    of ``gpu_generic``'s classes no table names."""
    from runtime_guard.demo import scenarios as sc

    if kind in GENERIC:
        import gpu_generic

        return gpu_generic.classes(sg)[GENERIC.index(kind)]
    current = sg.trtllm_mha_backend.TRTLLMHAAttnBackend
    if kind == "correct" or current is not sg.TRTLLMHAAttnBackend:
        return current
    return sc.pre_fix_backend_class()


def build(sg, geo: gs.Geometry, device: str, kind: str, corrupt: bool):
    """Target pool, the launching backend (the draft's, or the target's own) and its batch."""
    import torch

    target, allocator, req_to_token = gs.target_pool(sg, geo, device)
    if corrupt:  # one past the last page of the full buffer, through SGLang's own metadata
        full_pages = target.get_kv_buffer(FULL_LAYER)[0].shape[0] // geo.page
        tokens = torch.arange(geo.page, device=device, dtype=torch.int32)
        req_to_token[BAD_ROW, (geo.pages - 1) * geo.page:] = full_pages * geo.page + tokens
    draft = kind == "pre-fix" or kind in GENERIC
    active = gs.draft_pool(geo, device) if draft else target
    runner = gs.model_runner(active, allocator, req_to_token, geo, device, draft=draft)
    cls = backend_class(sg, kind)
    backend = (cls(runner, geo) if kind in GENERIC
               else gs.complete_backend(sg, cls, runner, geo, device))
    seq_lens = torch.full((geo.batch,), geo.context - 1, dtype=torch.int32, device=device)
    return target, backend, gs.decode_batch(active, seq_lens, runner)


def reference(backend, target, q, layer, geo: gs.Geometry, seq_lens):
    """The correct launch: the same kernel call on the target pool with the table a correct
    backend builds (SWA layer: the full pages translated by the target pool's own
    ``translate_loc_from_full_to_swa``; full layer: each request's own pages)."""
    import torch

    device = seq_lens.device
    rows = torch.arange(geo.batch, device=device)[:, None]
    owned = 1 + rows * geo.pages + torch.arange(geo.pages, device=device)
    if layer.layer_id == SWA_LAYER:
        swa = target.translate_loc_from_full_to_swa((owned * geo.page).flatten())
        table = (swa.view_as(owned) // geo.page).int()
    else:
        table = owned.int()
    return gs.xqa_reference(backend, target, q, layer, table, seq_lens), table


def run_case(name: str, geo: gs.Geometry, device: str) -> dict:
    import torch

    sg, kernel = gs.stack()
    env, kind, corrupt = CASES[name][:3]
    result = {"case": name, "kernel": kernel, "plugins": load_guard(sg)}
    target, backend, batch = build(sg, geo, device, kind, corrupt)
    result["backend"] = type(backend).__name__
    layer_id = FULL_LAYER if corrupt else SWA_LAYER
    layer = gs.attention_layer(layer_id, geo, sliding=layer_id == SWA_LAYER)
    q = torch.randn(geo.batch, gs.Q_HEADS * geo.head_dim, device=device).to(torch.bfloat16)
    expected = reference(backend, target, q, layer, geo, batch.seq_lens)
    if layer_id == SWA_LAYER:
        result["reference_vs_fp32"] = _fp32_error(target, q, layer, expected, batch.seq_lens,
                                                  geo.page)
    with _launch_view(sg, batch, target, backend, corrupt):
        outcome = _forward(backend, q, layer, batch, geo)
    if isinstance(outcome, dict):
        result.update(outcome)
        result["after"] = _still_usable(backend, target, q, layer, geo, batch, expected)
        return result
    result.update(_compare(outcome, expected, geo))
    return result


def _forward(backend, q, layer, batch, geo):
    """SGLang's metadata step and decode launch (both hooked when the plugin is loaded; a
    class no table names through ``AttentionBackend.forward``, the dispatch SGLang's layers
    call): the output, or a dict describing the error."""
    from runtime_guard import SWAPoolMismatchError

    launch = backend.forward if not hasattr(type(backend), "_get_layer_page_table") else (
        backend.forward_decode)
    try:
        gs.init_metadata(backend, batch, geo)
        out = launch(q, None, None, layer, batch, save_kv_cache=False)
        gs.sync(batch.seq_lens.device.type)
        return out
    except SWAPoolMismatchError as err:
        return {"outcome": "SWAPoolMismatchError before the launch", "message": str(err)[:400]}
    except Exception as err:  # the unguarded kernel's failure
        return {"outcome": type(err).__name__, "message": str(err)[:300]}


def _launch_view(sg, batch, target, backend, corrupt: bool):
    """The draft's launches read the target pool (SGLang's frozen_kv_target_view)."""
    import contextlib

    from runtime_guard.demo import scenarios as sc

    if corrupt:
        return contextlib.nullcontext()
    return sc.frozen_kv_view(batch, target, backend)


def _fp32_error(target, q, layer, expected, seq_lens, page: int) -> float:
    """Max abs error of the reference launch against an fp32 torch decode of the same pages."""
    k_cache, v_cache = (
        gs.paged_hnd(buf, layer, page) for buf in target.get_kv_buffer(layer.layer_id)
    )
    exact = gs.torch_paged_decode(
        q.view(q.shape[0], layer.tp_q_head_num, layer.head_dim), k_cache, v_cache,
        expected[1], seq_lens, layer.sliding_window_size, layer.scaling,
    )
    return float((exact.flatten(1) - expected[0].float()).abs().max())


def _compare(out, expected, geo) -> dict:
    import torch

    reference, _ = expected
    diff = (out.float() - reference.float()).abs().view(geo.batch, -1).amax(1)
    wrong = int((diff > 0).sum())
    return {
        "outcome": "output equals the reference" if wrong == 0 else "silently wrong output",
        "requests_differing": wrong, "max_abs_diff": float(diff.max()),
        "bitwise_equal": bool(torch.equal(out, reference)),
    }


def _still_usable(backend, target, q, layer, geo, batch, expected) -> str:
    """After the failure: does a correct launch on the same device still run?"""
    try:
        again = reference(backend, target, q, layer, geo, batch.seq_lens)[0]
        gs.sync(batch.seq_lens.device.type)
        same = bool((again == expected[0]).all())
        return "a correct launch afterwards succeeds" + ("" if same else " (output differs)")
    except Exception as err:
        return f"a correct launch afterwards fails: {type(err).__name__}: {str(err)[:120]}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES))
    parser.add_argument("--smoke", action="store_true", help="tiny shape, even with CUDA")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="run only the cases whose name holds TEXT (repeatable)")
    parser.add_argument("--skip", action="append", default=[], metavar="TEXT",
                        help="leave out the cases whose name holds TEXT (repeatable)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="GPU cases run at once (each its own process and CUDA context; "
                             "nothing here is timed, and a failed context stays in its process)")
    args = parser.parse_args(argv)
    import torch

    cuda = torch.cuda.is_available() and not args.smoke
    geo, device = (FULL, "cuda") if cuda else (SMOKE, "cpu")
    if args.case:
        print(json.dumps(run_case(args.case, geo, device)))
        return 0
    # Smoke runs overlap their SGLang imports; GPU cases run --jobs at a time.
    with ThreadPoolExecutor(max_workers=args.jobs if cuda else 2) as pool:
        results = list(pool.map(lambda name: _child(name, args.smoke), _chosen(args)))
    report(results, geo, device)
    return 0


def _chosen(args) -> list:
    return [name for name in CASES if (not args.only or any(t in name for t in args.only))
            and not any(text in name for text in args.skip)]


def _child(name: str, smoke: bool) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SGLANG_POOLGUARD") and k not in SGLANG_AIDS}
    env.update(CASES[name][0])
    prefix = list(CASES[name][3]) if len(CASES[name]) > 3 else []
    if prefix and (smoke or shutil.which(prefix[0]) is None):
        return {"case": name, "outcome": "not run", "message": f"{prefix[0]} not used here"}
    command = prefix + [sys.executable, __file__, "--case", name] + (["--smoke"] if smoke else [])
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return {"case": name, "outcome": f"process exit {done.returncode}",
                "message": " | ".join(tail)[:400]}
    result = json.loads(lines[-1])
    if prefix:  # what memcheck itself reported, before the program's own outcome
        result["message"] = _memcheck_summary(done.stdout + done.stderr) + " / " + (
            result.get("message") or result["outcome"])
    if done.returncode != 0:  # e.g. a CUDA error reported again at interpreter exit
        result["after"] = f"{result.get('after', '')} (process exit {done.returncode})".strip()
    return result


def _memcheck_summary(text: str) -> str:
    """compute-sanitizer's first error line, how many it printed, and its summary line."""
    errors = [line.strip("= ").strip() for line in text.splitlines()
              if line.startswith("========= ") and ("Invalid" in line or "Error" in line)]
    summary = next((line.strip("= ") for line in text.splitlines() if "ERROR SUMMARY" in line),
                   "no summary")
    first = errors[0] if errors else "no memcheck error"
    return f"memcheck: {first} ({len(errors)} such lines; {summary})"


def report(results: list, geo: gs.Geometry, device: str) -> None:
    kernel = next((r["kernel"] for r in results if "kernel" in r), "?")
    print(f"SGLang #26957 replay on {device}: {geo.batch} requests x {geo.context - 1} tokens, "
          f"page {geo.page}, window {geo.window}, head_dim {geo.head_dim}, kernel {kernel}")
    print()
    print("| case | env | backend | outcome | detail | afterwards |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in results:
        case = CASES[r["case"]]
        tool = [case[3][0]] if len(case) > 3 else []
        env = " ".join([f"{k}={v}" for k, v in case[0].items()] + tool) or "(none)"
        detail = r.get("message") or (
            f"{r.get('requests_differing')} of {geo.batch} requests differ, max abs diff "
            f"{r.get('max_abs_diff', 0):.3g}, bitwise equal: {r.get('bitwise_equal')}"
        )
        detail = detail.replace("|", "/").replace("\n", " ")
        print(f"| {r['case']} | `{env}` | {r.get('backend', '?')} | {r['outcome']} | "
              f"{detail} | {r.get('after', '')} |")
    errors = [r["reference_vs_fp32"] for r in results if "reference_vs_fp32" in r]
    if errors:
        print()
        print(f"The reference launch (same kernel, correctly translated SWA table, target pool) "
              f"against an fp32 torch decode of the same pages: max abs error {max(errors):.4f}.")


if __name__ == "__main__":
    sys.exit(main())
