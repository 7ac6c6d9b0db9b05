"""The upstream FROZEN_KV MTP crash, replayed on real SGLang objects on the CPU.

A hybrid model's real ``SWAKVPool``/``SWATokenToKVPoolAllocator`` serve the target; the
FROZEN_KV MTP draft owns a non-SWA pool; its trtllm backend resolved its SWA state the
pre-fix way (from the pool active at construction: the draft's own, so ``None``). SGLang's
own ``frozen_kv_target_view`` then swaps the target pool in for the draft's launches, and an
SWA layer would read the SWA buffer through full-pool page ids: on a GPU, an illegal memory
access inside the trtllm kernel. The guard stops it before the launch.
"""

from __future__ import annotations

import importlib.util
import logging

import pytest

torch = pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

from runtime_guard.demo import scenarios as sc  # noqa: E402

from runtime_guard import SWAPoolMismatchError, verify_page_bounds  # noqa: E402

SWA_LAYER = 0


def _frozen_kv_setup(backend_class):
    return sc.frozen_kv_draft(backend_class)


def _decode_args(batch):
    return sc.decode_args(batch, SWA_LAYER)


def test_pre_fix_backend_is_stopped_before_the_launch(guard):
    hooks = guard("check")
    target, backend, batch = _frozen_kv_setup(sc.pre_fix_backend_class())
    upstream_decode = sc.sglang().TRTLLMHAAttnBackend.forward_decode
    swa_buffer = target.get_kv_buffer(SWA_LAYER)[0]
    before = swa_buffer.clone()
    with sc.frozen_kv_view(batch, target, backend):
        # Without the guard: the table this SWA layer's kernel would get, against its buffer.
        table = backend._get_layer_page_table(sc.layer(SWA_LAYER), batch)
        with pytest.raises(SWAPoolMismatchError, match="outside the KV buffer's 9 pages"):
            verify_page_bounds(table, backend.forward_metadata.cache_seqlens_int32, 4, 9)
        # With the guard around SGLang's own forward_decode: raised before the KV write.
        with pytest.raises(SWAPoolMismatchError) as caught:
            hooks.guard_launch(upstream_decode, backend, *_decode_args(batch))
    assert torch.equal(swa_buffer, before)
    message = str(caught.value)
    for part in (
        "PreFixTRTLLMHAAttnBackend", "(draft, speculative algorithm FROZEN_KV_MTP)",
        "layer 0 (SWA)", "backend._swa_kv_pool is None",
        f"expected the active pool SWAKVPool id={id(target):#x} size=64 size_swa=32",
    ):
        assert part in message


def test_fixed_backend_passes_silently(guard, caplog):
    hooks = guard("bounds")
    fixed = sc.fixed_backend_module().FixedTRTLLMHAAttnBackend
    target, backend, batch = _frozen_kv_setup(fixed)
    launched = []
    with caplog.at_level(logging.WARNING, logger="runtime_guard"):
        with sc.frozen_kv_view(batch, target, backend):
            for layer_id in range(4):
                args = list(_decode_args(batch))
                args[3] = sc.layer(layer_id)
                hooks.guard_launch(lambda *a, **k: launched.append(a[4]), backend, *args)
    assert backend._swa_kv_pool is target
    assert len(launched) == 4 and not caplog.records


def test_log_action_reports_each_site_once(guard, caplog):
    hooks = guard("check", action="log")
    target, backend, batch = _frozen_kv_setup(sc.pre_fix_backend_class())
    launched = []
    with caplog.at_level(logging.ERROR, logger="runtime_guard"):
        with sc.frozen_kv_view(batch, target, backend):
            for _ in range(3):
                for layer_id in (0, 1):
                    args = list(_decode_args(batch))
                    args[3] = sc.layer(layer_id)
                    hooks.guard_launch(lambda *a, **k: launched.append(1), backend, *args)
    assert len(launched) == 6  # log mode lets the launch proceed
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert "layer 0 (SWA)" in lines[0] and "layer 1 (full)" in lines[1]


def test_metadata_and_replay_paths_stop_it_before_their_kernels(guard):
    """The metadata hooks (eager, capture, CUDA-graph replay) check before translating ids."""
    hooks = guard("check")
    target, backend, batch = _frozen_kv_setup(sc.pre_fix_backend_class())

    def metadata_kernels(*args, **kwargs):
        pytest.fail("the metadata path ran with a stale SWA pool")

    with sc.frozen_kv_view(batch, target, backend):
        with pytest.raises(SWAPoolMismatchError, match="backend._swa_kv_pool is None"):
            hooks.guard_metadata(metadata_kernels, backend, batch)
