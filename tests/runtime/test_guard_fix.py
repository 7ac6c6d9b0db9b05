"""The fix's reach beyond one backend object: every per-step backend of a multi-step draft,
and the cached full->SWA mapping of a pool whose ids the runner's translator translates."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import kernel_shim  # noqa: E402

from runtime_guard.demo import scenarios as sc  # noqa: E402

ATTENTION = "sglang.srt.layers.attention."
SEQ = [5, 9]


def _multi_step(module, container, step, steps=3):
    """SGLang's multi-step draft container holding ``steps`` real step backends of a FROZEN_KV
    draft, each stale (built from the draft's own pool) and each inside the target view."""
    kernel_shim.install()
    sc.sglang()
    mod = importlib.import_module(ATTENTION + module)
    runner, target = sc.configuration("FROZEN_KV draft")
    backend = getattr(mod, container).__new__(getattr(mod, container))
    backend.attn_backends = [sc.any_backend(sc.pre_fix_backend_class(getattr(mod, step)), runner)
                             for _ in range(steps)]
    for child in backend.attn_backends:
        if sc.backend_reads_own_pool():
            child.token_to_kv_pool = target  # frozen_kv_target_view, per step
    return backend, target


@pytest.mark.parametrize("module, container, step", [
    ("trtllm_mha_backend", "TRTLLMHAAttnMultiStepDraftBackend", "TRTLLMHAAttnBackend"),
    ("flashinfer_backend", "FlashInferMultiStepDraftBackend", "FlashInferAttnBackend"),
    ("triton_backend", "TritonMultiStepDraftBackend", "TritonAttnBackend"),
])
def test_the_fix_reaches_every_step_backend_of_a_multi_step_draft(module, container, step,
                                                                  guard):
    guard("check")  # built stale, as without the fix
    backend, target = _multi_step(module, container, step)
    hooks = guard("check", fix=True)
    from runtime_guard.backends import spec_for

    spec = spec_for(type(backend.attn_backends[0]))
    if not any(attr in vars(backend.attn_backends[0]) for attr in spec.state_attrs):
        pytest.skip(f"{step} keeps no SWA state on this release")
    batch = sc.decode_batch(target, SEQ)
    assert not any(getattr(child, spec.flag_attrs[0], True) for child in backend.attn_backends)
    hooks.guard_metadata(lambda *a: None, backend, batch)  # the container's metadata path
    for child in backend.attn_backends:
        assert all(getattr(child, attr) for attr in spec.flag_attrs if attr in vars(child))
        assert all(getattr(child, attr) is target for attr in spec.pool_attrs
                   if attr in vars(child))
    guard("check")
    for child in backend.attn_backends:  # and the guard agrees, step by step
        hooks.guard_launch(lambda *a: None, child, *sc.decode_args(batch, 0))


def test_the_fix_caches_no_token_mapping_where_the_translator_translates(guard):
    """trtllm keeps ``_swa_full_to_swa_mapping`` only for a static pool: on a unified pool
    (the runner's translator translates) the mapping is None, and so is the fix's."""
    kernel_shim.install()
    sc.sglang()
    try:
        translators = importlib.import_module("sglang.srt.mem_cache.kv_index_translator")
    except ImportError:
        pytest.skip("no KVIndexTranslator in this SGLang release")
    hooks = guard("check", fix=True)
    runner, target = sc.configuration("SWA target")
    backend = sc.any_backend(sc.fixed_backend_module().FixedTRTLLMHAAttnBackend, runner)
    backend.kv_index_translator = translators.KVIndexTranslator(
        req_to_token=runner.req_to_token_pool.req_to_token,
        token_to_kv_pool_allocator=runner.token_to_kv_pool_allocator,
        token_to_kv_pool=target, page_size=sc.PAGE, device="cpu")
    batch = sc.decode_batch(target, SEQ)
    hooks.guard_metadata(lambda *a: None, backend, batch)
    assert backend._swa_full_to_swa_mapping is target.full_to_swa_index_mapping
    # A unified allocator does not build on a CPU: its translator's one observable difference
    # here is the flag the backends test.
    backend.kv_index_translator.is_translating = True
    hooks.guard_metadata(lambda *a: None, backend, batch)
    assert backend._swa_full_to_swa_mapping is None
    assert backend._swa_kv_pool is target
