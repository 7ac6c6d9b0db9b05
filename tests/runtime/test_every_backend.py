"""The FROZEN_KV MTP replay on every backend class of the table that imports on this host.

For each one: the pre-fix state (built from the draft's own non-SWA pool) under SGLang's own
``frozen_kv_target_view`` is refused with ``SWAPoolMismatchError`` naming the class, before the
KV write and the kernel; the correct states pass; with the fix on, the stale instance reaches
its launch holding the target's SWA state. The hooks wrap the real upstream methods, exactly
as the plugin registers them; FlashAttention and XPU import through the ``sgl_kernel`` shim.
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import kernel_shim  # noqa: E402
import torch  # noqa: E402

from runtime_guard import SWAPoolMismatchError  # noqa: E402
from runtime_guard.backends import BACKENDS, spec_for  # noqa: E402
from runtime_guard.checks import is_swa_pool  # noqa: E402
from runtime_guard.demo import scenarios as sc  # noqa: E402

LAUNCHING = [spec for spec in BACKENDS if spec.launches and spec.state_attrs]
SEQ = [5, 9]


def _class(spec):
    kernel_shim.install()
    sc.sglang()
    try:
        return getattr(importlib.import_module(spec.module), spec.name)
    except Exception as err:  # noqa: BLE001 - e.g. Ascend needs torch_npu
        pytest.skip(f"{spec.name} does not import here: {err}")


def _stateful(cls, runner):
    """The pre-fix backend, or a skip where this release keeps no SWA state in the class."""
    backend = sc.any_backend(sc.pre_fix_backend_class(cls), runner)
    if not any(attr in vars(backend) for attr in spec_for(cls).state_attrs):
        pytest.skip(f"{cls.__name__} keeps no SWA state on this SGLang release")
    return backend


def _launch(hooks, backend, runner, reads, layer_id, original):
    batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
    table = sc.contiguous_page_table(SEQ, 4)
    swa_table = table % (sc.SIZE_SWA // sc.PAGE) if is_swa_pool(reads) else None
    sc.metadata(backend, SEQ, table, swa_table)
    view = sc.frozen_kv_view(batch, reads, backend)
    with view:
        return hooks.guard_launch(original, backend, *sc.decode_args(batch, layer_id))


@pytest.mark.parametrize("spec", LAUNCHING, ids=lambda spec: spec.name)
def test_stale_frozen_kv_state_is_refused_before_the_kv_write(spec, guard):
    hooks = guard("check")
    cls = _class(spec)
    runner, target = sc.configuration("FROZEN_KV draft")
    backend = _stateful(cls, runner)
    buffer = target.get_kv_buffer(0)[0]
    before = buffer.clone()
    with pytest.raises(SWAPoolMismatchError, match=spec.name) as caught:
        _launch(hooks, backend, runner, target, 0, getattr(cls, "forward_decode"))
    assert "(draft, speculative algorithm FROZEN_KV_MTP)" in str(caught.value)
    assert torch.equal(buffer, before)  # refused before set_kv_buffer


@pytest.mark.parametrize("spec", LAUNCHING, ids=lambda spec: spec.name)
@pytest.mark.parametrize("kind", ["SWA target", "non-SWA model", "EAGLE draft, own pool"])
def test_correct_states_launch(spec, kind, guard):
    hooks = guard("check")
    cls = _class(spec)
    runner, reads = sc.configuration(kind)
    backend = sc.any_backend(cls, runner)
    reached = []
    for layer_id in range(2):
        _launch(hooks, backend, runner, reads, layer_id, lambda *a, **k: reached.append(a[4]))
    assert [layer.layer_id for layer in reached] == [0, 1]


@pytest.mark.parametrize("spec", LAUNCHING, ids=lambda spec: spec.name)
def test_fix_makes_the_stale_instance_follow_the_target_pool(spec, guard):
    hooks = guard("check", fix=True)
    cls = _class(spec)
    runner, target = sc.configuration("FROZEN_KV draft")
    backend = _stateful(cls, runner)
    seen = []

    def kernel(backend, *args):  # what the launch sees of the backend's SWA state
        seen.append({attr: getattr(backend, attr) for attr in spec.state_attrs
                     if attr in vars(backend) or hasattr(type(backend), attr)})

    _launch(hooks, backend, runner, target, 0, kernel)
    (state,) = seen
    assert state
    for attr in spec.pool_attrs:
        assert state.get(attr, target) is target
    for attr in spec.flag_attrs:
        assert state.get(attr, True) is True
    for attr in spec.mapping_attrs:
        assert state.get(attr, target.full_to_swa_index_mapping) is target.full_to_swa_index_mapping


def test_fix_keeps_an_eagle_draft_on_its_own_pool(guard):
    hooks = guard("check", fix=True)
    spec = next(spec for spec in LAUNCHING if spec.name == "TritonAttnBackend")
    runner, own = sc.configuration("EAGLE draft, own pool")
    backend = sc.any_backend(_class(spec), runner)
    backend.use_sliding_window_kv_pool = True  # stale the other way: a flag from another pool
    flags = []
    kernel = lambda b, *a: flags.append(b.use_sliding_window_kv_pool)  # noqa: E731
    _launch(hooks, backend, runner, own, 0, kernel)
    assert flags == [False]


READING = [spec for spec in LAUNCHING if spec.reader]


@pytest.mark.parametrize("spec", READING, ids=lambda spec: spec.name)
def test_bounds_mode_checks_what_each_backend_launch_reads(spec, guard):
    """A correct SWA state whose page table / write locations point past the buffer."""
    hooks = guard("bounds")
    cls = _class(spec)
    runner, target = sc.configuration("SWA target")
    backend = sc.any_backend(cls, runner)
    batch = sc.decode_batch(target, SEQ)
    full_slots = target.get_kv_buffer(1)[0].shape[0]
    table = sc.contiguous_page_table(SEQ, 4)
    sc.metadata(backend, SEQ, table, table % (sc.SIZE_SWA // sc.PAGE))
    batch.out_cache_loc = torch.tensor([3, full_slots + 5])  # one write past the full buffer
    backend.forward_metadata.swa_out_cache_loc = torch.tensor([1, 2])
    backend.forward_metadata.page_table[1, 0] = full_slots  # a page far past the full buffer
    reached = []
    launch = lambda layer_id: hooks.guard_launch(  # noqa: E731
        lambda *a: reached.append(layer_id), backend, *sc.decode_args(batch, layer_id))
    launch(0)  # the SWA layer reads only in-range entries
    with pytest.raises(SWAPoolMismatchError, match=rf"{spec.name} .*layer 1 \(full\)"):
        launch(1)
    assert reached == [0]


@pytest.mark.parametrize("spec", LAUNCHING, ids=lambda spec: spec.name)
@pytest.mark.parametrize("kind, swa", [("FROZEN_KV draft", True), ("EAGLE draft, own pool", False)])
def test_fix_holds_for_cuda_graph_state_and_capture(spec, kind, swa, guard):
    """CUDA-graph buffers are sized outside the target view (the allocator's pool decides for
    a FROZEN_KV draft, the draft's own pool for EAGLE); capture runs inside it."""
    hooks = guard("check", fix=True)
    cls = _class(spec)
    runner, reads = sc.configuration(kind)
    backend = _stateful(cls, runner)
    flags = []

    def record(backend, *args):
        flags.append(all(bool(getattr(backend, a)) == swa for a in spec.flag_attrs + spec.pool_attrs
                         if a in vars(backend)))

    hooks.guard_graph_state(record, backend, 4, 64)  # outside any view
    batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
    sc.metadata(backend, SEQ, sc.contiguous_page_table(SEQ, 4),
                sc.contiguous_page_table(SEQ, 4) % (sc.SIZE_SWA // sc.PAGE) if swa else None)
    with sc.frozen_kv_view(batch, reads, backend):
        hooks.guard_metadata(record, backend, batch)  # the capture/replay metadata path
    assert flags == [True, True]
