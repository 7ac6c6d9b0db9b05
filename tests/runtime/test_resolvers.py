"""Every SWA-pool resolver poolguard ships, held to the contract of SGLang's own resolver test.

SGLang's unit test for ``_resolve_swa_kv_pool`` builds pools as ``MagicMock(spec=SWAKVPool)``
(an object whose ``__class__`` is the pool class) and runners as mocks carrying the real
``SpeculativeAlgorithm``. The same six cases run here over the fixed trtllm backend's resolver
and the fix's resolver with each backend's own SWA test, so ours are drop-in: what counts as
an SWA pool is what the backend itself tests (trtllm ``SWAKVPool``, flashinfer
``BaseSWAKVPool``), and the guard agrees with that test instead of raising where the backend
is right.
"""

from __future__ import annotations

import importlib.util
from unittest.mock import MagicMock

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

from runtime_guard.demo import scenarios as sc  # noqa: E402

from runtime_guard.backends import BACKENDS  # noqa: E402
from runtime_guard.checks import facts_of, find_backend_problem  # noqa: E402
from runtime_guard.fix import resolve_swa_pool  # noqa: E402


def _pool_classes():
    sc.sglang()
    from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

    return SWAKVPool, BaseSWAKVPool


def _spec(name):
    return next(spec for spec in BACKENDS if spec.name == name)


def _resolvers():
    """(name, resolve(runner), the pool class that backend tests for)."""
    swa, base = _pool_classes()
    fixed = sc.fixed_backend_module().FixedTRTLLMHAAttnBackend
    trtllm, flashinfer = _spec("TRTLLMHAAttnBackend"), _spec("FlashInferAttnBackend")

    def through_fix(spec):
        return lambda runner: resolve_swa_pool(runner.token_to_kv_pool, facts_of(runner),
                                               spec.is_swa)

    return [("fixed trtllm class", fixed._resolve_swa_kv_pool, swa),
            ("fix, trtllm row", through_fix(trtllm), swa),
            ("fix, flashinfer row", through_fix(flashinfer), base)]


RESOLVERS = ["fixed trtllm class", "fix, trtllm row", "fix, flashinfer row"]


def _resolver(name):
    return next((resolve, kind) for label, resolve, kind in _resolvers() if label == name)


def _runner(active=None, draft=False, spec="NONE", kvcache=None):
    runner = MagicMock()
    runner.token_to_kv_pool = active
    runner.is_draft_worker = draft
    runner.spec_algorithm = sc.algorithm(spec)
    runner.token_to_kv_pool_allocator.get_kvcache.return_value = kvcache
    return runner


@pytest.mark.parametrize("name", RESOLVERS)
def test_an_swa_active_pool_is_returned(name):
    resolve, kind = _resolver(name)
    pool = MagicMock(spec=kind)
    assert resolve(_runner(active=pool)) is pool


@pytest.mark.parametrize("name", RESOLVERS)
def test_a_non_swa_active_pool_falls_through_to_the_allocator(name):
    resolve, kind = _resolver(name)
    pool = MagicMock(spec=kind)
    assert resolve(_runner(active=MagicMock(), kvcache=pool)) is pool


@pytest.mark.parametrize("name", RESOLVERS)
def test_an_allocator_pool_that_is_not_swa_gives_none(name):
    resolve, _ = _resolver(name)
    assert resolve(_runner(active=MagicMock(), kvcache=MagicMock())) is None


@pytest.mark.parametrize("name", RESOLVERS)
def test_an_eagle_draft_gets_none(name):
    resolve, kind = _resolver(name)
    runner = _runner(active=MagicMock(), draft=True, spec="EAGLE", kvcache=MagicMock(spec=kind))
    assert resolve(runner) is None


@pytest.mark.parametrize("name", RESOLVERS)
def test_a_frozen_kv_draft_gets_the_allocator_pool(name):
    resolve, kind = _resolver(name)
    pool = MagicMock(spec=kind)
    runner = _runner(active=MagicMock(), draft=True, spec="FROZEN_KV_MTP", kvcache=pool)
    assert resolve(runner) is pool


@pytest.mark.parametrize("name", RESOLVERS)
def test_a_target_ignores_the_speculative_algorithm(name):
    resolve, kind = _resolver(name)
    pool = MagicMock(spec=kind)
    assert resolve(_runner(active=MagicMock(), spec="EAGLE", kvcache=pool)) is pool


def test_a_base_swa_pool_counts_for_flashinfer_only():
    """A ``BaseSWAKVPool`` that is not an ``SWAKVPool`` (DeepSeek-V4's kind): flashinfer's
    resolver takes it, trtllm's does not, exactly as their upstream resolvers do."""
    _, base = _pool_classes()
    pool = MagicMock(spec=base)
    runner = _runner(active=pool)
    assert _resolver("fix, flashinfer row")[0](runner) is pool
    assert _resolver("fix, trtllm row")[0](runner) is None
    assert _resolver("fixed trtllm class")[0](runner) is None


def _backend_reading(pool, name, **state):
    cls = type(name, (), {})
    backend = cls()
    backend.token_to_kv_pool = pool
    vars(backend).update(state)
    return backend


@pytest.mark.parametrize("row, pool_state", [
    ("FlashInferAttnBackend", {"_swa_kv_pool": "pool", "use_sliding_window_kv_pool": True}),
    ("TritonAttnBackend", {"use_sliding_window_kv_pool": False}),
    ("TRTLLMHAAttnBackend", {"_swa_kv_pool": None, "use_sliding_window_kv_pool": False}),
])
def test_the_guard_uses_each_backends_own_swa_test(row, pool_state):
    """No false alarm where the backend is right: a ``BaseSWAKVPool``-only pool is SWA for
    flashinfer and not for triton or trtllm; the opposite state is refused."""
    _, base = _pool_classes()
    pool = MagicMock(spec=base)
    state = {k: (pool if v == "pool" else v) for k, v in pool_state.items()}
    spec = _spec(row)
    assert find_backend_problem(_backend_reading(pool, row, **state), spec=spec) is None
    flipped = {k: (None if v is pool else pool if v is None else not v) for k, v in state.items()}
    problem = find_backend_problem(_backend_reading(pool, row, **flipped), spec=spec)
    assert problem is not None and problem.kind in ("pool", "flag")


def test_a_spec_mock_of_the_real_pool_class_is_an_swa_pool_to_the_guard():
    """``__class__``-spoofing objects count (the old check read ``type(pool).__mro__``)."""
    swa, _ = _pool_classes()
    pool = MagicMock(spec=swa)
    backend = _backend_reading(pool, "TRTLLMHAAttnBackend", _swa_kv_pool=None)
    problem = find_backend_problem(backend, spec=_spec("TRTLLMHAAttnBackend"))
    assert problem.kind == "pool" and "backend._swa_kv_pool is None" in problem.message
