"""``verify_backend`` on real SGLang pools, allocators and trtllm backends on the CPU.

Correct configurations pass; each way a backend's SWA state can disagree with the pool a
launch reads is caught, with a message that says where and what.
"""

from __future__ import annotations

import contextlib
import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

from runtime_guard.demo import scenarios as sc  # noqa: E402

from runtime_guard import SWAPoolMismatchError, verify_backend  # noqa: E402
from runtime_guard.checks import find_backend_problem, is_swa_pool  # noqa: E402

SEQ = [5, 9]
CONFIGS = sc.CONFIGURATIONS


def _layer_ids(pool):
    return sorted(pool.layers_mapping) if is_swa_pool(pool) else list(range(pool.layer_num))


def _backend_class(kind):
    if kind == "fixed":
        return sc.fixed_backend_module().FixedTRTLLMHAAttnBackend
    upstream = sc.sglang().TRTLLMHAAttnBackend
    if not hasattr(upstream, "_resolve_swa_kv_pool"):
        pytest.skip("this SGLang's trtllm backend predates _resolve_swa_kv_pool (< 0.5.13)")
    return upstream


def _prepared(cls, runner, reads):
    """Backend with decode metadata, its batch, and the view that makes ``reads`` active."""
    backend = sc.construct_backend(cls, runner)
    swa_table = sc.contiguous_page_table(SEQ, 4) if is_swa_pool(reads) else None
    sc.metadata(backend, SEQ, sc.contiguous_page_table(SEQ, 4), swa_table)
    batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
    if reads is runner.token_to_kv_pool:
        return backend, batch, contextlib.nullcontext()
    return backend, batch, sc.frozen_kv_view(batch, reads, backend)


@pytest.mark.parametrize("kind", ["fixed", "upstream"])
@pytest.mark.parametrize("name", CONFIGS)
def test_correct_configurations_pass(name, kind, guard):
    hooks = guard("bounds")
    runner, reads = sc.configuration(name)
    backend, batch, view = _prepared(_backend_class(kind), runner, reads)
    launched = []
    with view:
        verify_backend(backend, None, batch)
        hooks.guard_metadata(lambda *a, **k: None, backend, batch)
        for layer_id in _layer_ids(reads):
            verify_backend(backend, layer_id, batch)
            hooks.guard_launch(
                lambda *a, **k: launched.append(layer_id), backend, None, None, None,
                sc.layer(layer_id), batch,
            )
    assert (backend._swa_kv_pool is not None) == is_swa_pool(reads)
    assert launched == _layer_ids(reads)


def test_eagle_draft_given_the_target_allocator_pool_is_caught():
    """SGLang 0.5.12 resolved the pool from the shared allocator (PR #26966), handing an EAGLE
    draft the target's SWA pool for its own full pool."""
    runner, reads = sc.configuration("EAGLE draft, own pool")
    backend = sc.construct_backend(sc.fixed_backend_module().FixedTRTLLMHAAttnBackend, runner)
    backend._swa_kv_pool = runner.token_to_kv_pool_allocator.get_kvcache()
    with pytest.raises(SWAPoolMismatchError) as caught:
        verify_backend(backend, 0, sc.decode_batch(reads, SEQ))
    message = str(caught.value)
    assert "(draft, speculative algorithm EAGLE)" in message
    assert "backend._swa_kv_pool is SWAKVPool" in message
    assert "expected None (the active pool MHATokenToKVPool" in message


def test_stale_flag_is_caught():
    """A subclass that re-resolves ``_swa_kv_pool`` after the base set its boolean mirror."""
    cls = sc.pre_fix_backend_class()
    target = sc.swa_pool()
    runner = sc.runner(target, sc.swa_allocator(target))
    backend = sc.construct_backend(cls, runner)
    backend.__dict__["use_sliding_window_kv_pool"] = False  # the mirror from before re-resolving
    problem = find_backend_problem(backend, 1, sc.decode_batch(target, SEQ))
    assert problem.kind == "flag"
    assert "use_sliding_window_kv_pool=False but the pool the launch reads is SWAKVPool" in (
        problem.message
    )


def test_swa_layer_without_swa_page_table_is_caught():
    target = sc.swa_pool()
    runner = sc.runner(target, sc.swa_allocator(target))
    backend = sc.construct_backend(sc.fixed_backend_module().FixedTRTLLMHAAttnBackend, runner)
    sc.metadata(backend, SEQ, sc.contiguous_page_table(SEQ, 4), swa_page_table=None)
    batch = sc.decode_batch(target, SEQ)
    verify_backend(backend, 1, batch)  # full layer: the full table is right
    with pytest.raises(SWAPoolMismatchError, match=r"layer 2 \(SWA\).*full page table"):
        verify_backend(backend, 2, batch)


def test_fixed_backend_flag_follows_the_pool():
    fixed = sc.fixed_backend_module().FixedTRTLLMHAAttnBackend
    target = sc.swa_pool()
    backend = sc.construct_backend(fixed, sc.runner(target, sc.swa_allocator(target)))
    assert backend.use_sliding_window_kv_pool is True
    backend.use_sliding_window_kv_pool = False  # what inherited __init__ code does: ignored
    assert backend.use_sliding_window_kv_pool is True
    backend._swa_kv_pool = None
    assert backend.use_sliding_window_kv_pool is False
    assert "use_sliding_window_kv_pool" not in vars(backend)


def test_fixed_resolver_tolerates_allocators_without_get_kvcache():
    fixed = sc.fixed_backend_module().FixedTRTLLMHAAttnBackend
    pool = sc.mha_pool()
    runner = sc.runner(pool, allocator=object(), draft=True, spec="FROZEN_KV_MTP")
    assert fixed._resolve_swa_kv_pool(runner) is None


def _target_backend():
    target = sc.swa_pool()
    runner = sc.runner(target, sc.swa_allocator(target))
    backend = sc.construct_backend(sc.fixed_backend_module().FixedTRTLLMHAAttnBackend, runner)
    return target, backend, sc.decode_batch(target, SEQ)


def test_another_swa_pool_than_the_active_one_is_caught():
    """Identity, not presence: an SWA pool of the same type and size is still the wrong one."""
    target, backend, batch = _target_backend()
    twin = sc.swa_pool()
    sc.swa_allocator(twin)
    backend._swa_kv_pool = twin
    with pytest.raises(SWAPoolMismatchError) as caught:
        verify_backend(backend, None, batch)
    assert f"backend._swa_kv_pool is SWAKVPool id={id(twin):#x}" in str(caught.value)
    assert f"expected the active pool SWAKVPool id={id(target):#x}" in str(caught.value)


def test_full_to_swa_mapping_cached_from_another_pool_is_caught():
    target, backend, batch = _target_backend()
    twin = sc.swa_pool()
    sc.swa_allocator(twin)
    backend.__dict__["_swa_full_to_swa_mapping"] = target.full_to_swa_index_mapping
    verify_backend(backend, None, batch)  # the active pool's own mapping
    backend.__dict__["_swa_full_to_swa_mapping"] = twin.full_to_swa_index_mapping
    with pytest.raises(SWAPoolMismatchError, match="_swa_full_to_swa_mapping is not the full->SWA"):
        verify_backend(backend, None, batch)


def test_swa_layer_given_the_full_table_as_its_swa_table_is_caught():
    target, backend, batch = _target_backend()
    table = sc.contiguous_page_table(SEQ, 4)
    sc.metadata(backend, SEQ, table, swa_page_table=table)
    verify_backend(backend, 1, batch)  # a full layer reads that table rightly
    with pytest.raises(SWAPoolMismatchError, match="swa_page_table is the full page table itself"):
        verify_backend(backend, 2, batch)


def test_a_helper_holding_a_stale_copy_of_the_pool_is_caught():
    """FlashInfer's indices updaters keep their own copy of the backend's SWA pool."""
    target, backend, batch = _target_backend()
    updater = type("IndicesUpdater", (), {})()
    updater._swa_kv_pool = target
    backend.indices_updater_decode = updater
    verify_backend(backend, None, batch)
    updater._swa_kv_pool = None  # copied before the pool was swapped
    with pytest.raises(SWAPoolMismatchError, match=r"backend.indices_updater_decode._swa_kv_pool"):
        verify_backend(backend, None, batch)
