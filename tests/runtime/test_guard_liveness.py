"""Live or latent, per backend of the table, on the batch SGLang's FROZEN_KV worker builds.

A stale FROZEN_KV draft backend (built from the draft's own pool) launched under SGLang's
``frozen_kv_target_view`` with ``out_cache_loc = None`` and ``save_kv_cache=False`` (the frozen
draft writes no KV): on TorchNative and Triton (SGLang 0.5.23 reads their flag only to write)
``check`` logs one latent warning and the launch runs; with ``SGLANG_INVARIANT_CHECK=strict`` it
raises; every other backend raises a live error. A batch that writes makes every one live.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import kernel_shim  # noqa: E402

from runtime_guard import SWAPoolMismatchError  # noqa: E402
from runtime_guard.backends import BACKENDS, spec_for  # noqa: E402
from runtime_guard.config import GuardConfig, read_config  # noqa: E402
from runtime_guard.demo import scenarios as sc  # noqa: E402

SEQ = [5, 9]
LAUNCHING = [spec for spec in BACKENDS if spec.launches and spec.state_attrs]


def _stale(spec):
    kernel_shim.install()
    sc.sglang()
    try:
        cls = getattr(importlib.import_module(spec.module), spec.name)
    except Exception as err:  # noqa: BLE001 - e.g. Ascend needs torch_npu
        pytest.skip(f"{spec.name} does not import here: {err}")
    runner, target = sc.configuration("FROZEN_KV draft")
    backend = sc.any_backend(sc.pre_fix_backend_class(cls), runner)
    if not any(attr in vars(backend) for attr in spec_for(cls).state_attrs):
        pytest.skip(f"{cls.__name__} keeps no SWA state on this SGLang release")
    return backend, runner, target


def _launch(hooks, backend, runner, target, writes: bool):
    batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
    if not writes:
        batch.out_cache_loc = None  # frozen_kv_mtp_worker_v2: the frozen draft writes no KV
    table = sc.contiguous_page_table(SEQ, 4)
    sc.metadata(backend, SEQ, table, table % (sc.SIZE_SWA // sc.PAGE))
    q, k, v, layer, batch = sc.decode_args(batch, 0)
    with sc.frozen_kv_view(batch, target, backend):
        return hooks.guard_launch(lambda *a, **kw: "launched", backend, q, k, v, layer, batch,
                                  save_kv_cache=writes)


@pytest.mark.parametrize("spec", LAUNCHING, ids=lambda spec: spec.name)
def test_latent_only_where_the_backend_reads_the_state_only_to_write(spec, guard, caplog):
    hooks = guard("check")
    backend, runner, target = _stale(spec)
    if spec.state_read_only_to_write:
        with caplog.at_level(logging.WARNING, logger="runtime_guard"):
            assert _launch(hooks, backend, runner, target, writes=False) == "launched"
            assert _launch(hooks, backend, runner, target, writes=False) == "launched"
        latent = [r for r in caplog.records if "poolguard (latent: " in r.getMessage()]
        assert len(latent) == 1 and latent[0].levelno == logging.WARNING
    else:
        with pytest.raises(SWAPoolMismatchError, match=r"^poolguard \(live: "):
            _launch(hooks, backend, runner, target, writes=False)
    with pytest.raises(SWAPoolMismatchError, match=r"^poolguard \(live: "):
        _launch(hooks, backend, runner, target, writes=True)


@pytest.mark.parametrize("level, raises, logs", [("strict", True, 0), ("off", False, 0),
                                                 ("warn", False, 1)])
def test_sglang_invariant_check_decides_what_a_latent_one_does(level, raises, logs, caplog):
    from runtime_guard import hooks

    spec = next(spec for spec in LAUNCHING if spec.name == "TorchNativeAttnBackend")
    config = read_config({"SGLANG_POOLGUARD": "1", "SGLANG_INVARIANT_CHECK": level})
    assert config == GuardConfig(mode="check", latent=level)
    previous = hooks.configure(config)
    try:
        backend, runner, target = _stale(spec)
        with caplog.at_level(logging.WARNING, logger="runtime_guard"):
            if raises:
                with pytest.raises(SWAPoolMismatchError, match=r"^poolguard \(latent: "):
                    _launch(hooks, backend, runner, target, writes=False)
            else:
                assert _launch(hooks, backend, runner, target, writes=False) == "launched"
    finally:
        hooks.configure(previous)
    assert sum("poolguard (latent: " in r.getMessage() for r in caplog.records) == logs
