"""``poolguard demo`` step 3: the FROZEN_KV MTP pool swap replayed on real SGLang pools (CPU).

Shows what the trtllm kernel would have been handed without the guard, the error the guard
raises instead, and the fixed backend passing the same scenario; then the same swap end to
end on SGLang's TorchNative backend (``runtime_guard.demo.torch_native``). Raises ImportError when
torch or SGLang is not installed.
"""

from __future__ import annotations

from runtime_guard.config import GuardConfig


def replay_frozen_kv_swap() -> str:
    """Run the replay with the guard in bounds mode and return the report text."""
    from runtime_guard import hooks
    from runtime_guard.demo import scenarios

    scenarios.sglang()
    previous = hooks.configure(GuardConfig(mode="bounds"))
    try:
        lines = _pre_fix_backend(hooks, scenarios) + _fixed_backend(hooks, scenarios)
    finally:
        hooks.configure(previous)
    from runtime_guard.demo import torch_native

    return "\n".join(lines) + "\n" + torch_native.report()


def _pre_fix_backend(hooks, sc) -> list:
    from runtime_guard.bounds import find_bounds_problem
    from runtime_guard.errors import SWAPoolMismatchError

    target, backend, batch = sc.frozen_kv_draft(sc.pre_fix_backend_class())
    lines = [
        "A FROZEN_KV MTP draft's trtllm backend resolved its SWA pool from its own non-SWA pool",
        f"at construction: _swa_kv_pool = {backend._swa_kv_pool}. SGLang's frozen_kv_target_view",
        "then swaps in the target's SWAKVPool for the draft's launches.",
        "",
    ]
    with sc.frozen_kv_view(batch, target, backend):
        table = backend._get_layer_page_table(sc.layer(0), batch)
        pages = target.get_kv_buffer(0)[0].shape[0] // sc.PAGE
        seq_lens = backend.forward_metadata.cache_seqlens_int32
        problem = find_bounds_problem(table, seq_lens, sc.PAGE, pages, "SWA layer 0")
        lines += ["Without the guard, the kernel for SWA layer 0 gets the full page table:",
                  f"  {problem.message if problem else 'in range (unexpected)'}", ""]
        upstream_decode = sc.sglang().TRTLLMHAAttnBackend.forward_decode
        try:
            hooks.guard_launch(upstream_decode, backend, *sc.decode_args(batch, 0))
            lines.append("With SGLANG_POOLGUARD=bounds: NOT caught (unexpected)")
        except SWAPoolMismatchError as err:
            lines += ["With SGLANG_POOLGUARD=bounds, SGLang's forward_decode stops before the "
                      "KV write and the kernel:", f"  SWAPoolMismatchError: {err}"]
    return lines


def _fixed_backend(hooks, sc) -> list:
    fixed = sc.fixed_backend_module().FixedTRTLLMHAAttnBackend
    target, backend, batch = sc.frozen_kv_draft(fixed)
    reached = []
    with sc.frozen_kv_view(batch, target, backend):
        for layer_id in sorted(target.layers_mapping):
            hooks.guard_launch(lambda *a, **k: reached.append(a[4].layer_id), backend,
                               *sc.decode_args(batch, layer_id))
    same = "the target's SWAKVPool" if backend._swa_kv_pool is target else "another pool"
    return [
        "",
        f"With SGLANG_POOLGUARD_FIX=1, {fixed.__name__} resolves _swa_kv_pool through the "
        f"allocator ({same}); the guard lets layers {reached} launch.",
    ]
