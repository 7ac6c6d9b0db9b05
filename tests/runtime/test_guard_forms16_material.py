"""The material of ``guard_forms16`` is what it says (no guard): for each stale class and each
configuration it names, inside the per-forward swap ``guard_forms.launch`` applies (SGLang's
own ``frozen_kv_target_view`` for the FROZEN_KV drafts), its ``STALE_STATE`` (dotted
attributes, ``[key]`` items, a function's closure variables by name) holds what the launch does
not read, and the decode still launches; each correct twin's state is live there."""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import ast  # noqa: E402
import contextlib  # noqa: E402
import dataclasses  # noqa: E402
import re  # noqa: E402
import types  # noqa: E402
import weakref  # noqa: E402

import guard_forms as gf  # noqa: E402
import guard_forms16 as f  # noqa: E402
import torch  # noqa: E402

bb, sc = gf.bb, gf.sc
SWAKVPool = bb.SWAKVPool
LAYER = 0  # the layer guard_forms.launch runs: a window layer of the target's SWA pool

_TOKEN = re.compile(r"\.?([A-Za-z_][A-Za-z_0-9]*)|\[([^\]]+)\]")


def resolve(obj, path: str):
    """``path`` on ``obj``: ``.name`` is an attribute (for a function: a closure variable),
    ``[key]`` an item."""
    pos = 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        assert m, f"bad path {path!r} at {pos}"
        name, key = m.groups()
        if key is not None:
            obj = obj[ast.literal_eval(key)]
        elif isinstance(obj, types.FunctionType) and name in obj.__code__.co_freevars:
            obj = obj.__closure__[obj.__code__.co_freevars.index(name)].cell_contents
        else:
            obj = getattr(obj, name)
        pos = m.end()
    return obj


def _swa(pool):
    return isinstance(pool, SWAKVPool)


def _window_layer(live) -> bool:
    return _swa(live) and live.layers_mapping[LAYER][1]


# ----------------------------------------------------------------- per-class checks


def check_stage_pipeline(run, held, live):
    assert held is not live, "gather stage holds the live pool"
    assert held is run.runner.token_to_kv_pool  # the init-time pool


def check_slots_record(run, held, live):
    assert not hasattr(run.backend.kv_rec, "__dict__")  # really slotted
    assert _window_layer(live)
    assert held is not live.swa_kv_pool, "record holds the live window sub-pool"


def check_callback_table(run, held, live):
    assert held is not live, "kv_ids closes over the live pool"
    assert held is run.runner.token_to_kv_pool
    # what the callback does is decided by the held pool: no translation, or the wrong map
    if _swa(held):
        assert held.full_to_swa_index_mapping is not live.full_to_swa_index_mapping
    else:
        assert _window_layer(live)  # the launch needed a translation it does not get


def check_weak_value_pools(run, held, live):
    assert isinstance(run.backend._pools, weakref.WeakValueDictionary)
    assert _window_layer(live)
    assert held is not live.swa_kv_pool, "weak dict holds the live window sub-pool"


def check_allocator_layer_array(run, held, live):
    assert held[LAYER] == 1, "array does not mark layer 0 windowed"
    assert not _swa(live), "the launch reads an SWA pool: the flag would be right"
    assert live is run.runner.token_to_kv_pool  # EAGLE: nothing swapped; own full pool
    # the map it would translate with belongs to another pool than the one read
    kvcache = run.runner.token_to_kv_pool_allocator.get_kvcache()
    assert kvcache is not live


def check_cached_layout(run, held, live):
    assert "window_pool" in vars(run.backend.layout), "cached_property not filled at init"
    assert _window_layer(live)
    assert held is not live.swa_kv_pool, "cached window pool is the live sub-pool"


def check_forced_plan(run, held, live):
    plan = run.backend.plan
    assert "_swa_map" not in {fl.name for fl in dataclasses.fields(plan)}
    assert _swa(live)
    assert held is not live.full_to_swa_index_mapping, "forced map is the live map"


def check_state_machine(run, held, live):
    state = run.backend.fsm.state
    assert state.step >= 1, "metadata build did not advance the state machine"
    assert held is not live, "state carries the live pool"
    assert held is run.runner.token_to_kv_pool


def check_runtime_subclass(run, held, live):
    cls = type(run.backend)
    assert cls is not run.cls and issubclass(cls, run.cls) and cls.__name__ == run.cls.__name__
    assert "_window_key" in vars(cls) and "_window_key" not in vars(run.backend)
    assert _window_layer(live)
    assert held.__self__ is not live.swa_kv_pool, "class attribute is the live sub-pool's reader"


def check_mapping_view(run, held, live):
    assert torch.is_tensor(held) and held._base is not None  # a view, not the mapping itself
    live_map = live.full_to_swa_index_mapping
    assert held is not live_map
    assert held.untyped_storage().data_ptr() != live_map.untyped_storage().data_ptr(), \
        "view shares the live map's storage"
    own_map = run.runner.token_to_kv_pool.full_to_swa_index_mapping
    assert held.untyped_storage().data_ptr() == own_map.untyped_storage().data_ptr()


def check_window_layer_count(run, held, live):
    assert isinstance(held, int) and held == 0
    assert _swa(live) and live.swa_layer_nums > 0 and _window_layer(live)


def check_layer_pairs(run, held, live):
    is_window, translate = held
    assert _window_layer(live)
    if is_window:
        assert translate.__self__ is not live, "pair translates through the live pool"
    else:
        assert translate is None  # the launch's window layer read with full-pool ids


CHECKS = {
    f.StagePipelineAttnBackend: check_stage_pipeline,
    f.SlotsRecordAttnBackend: check_slots_record,
    f.CallbackTableAttnBackend: check_callback_table,
    f.WeakValuePoolsAttnBackend: check_weak_value_pools,
    f.AllocatorLayerArrayAttnBackend: check_allocator_layer_array,
    f.CachedLayoutAttnBackend: check_cached_layout,
    f.ForcedPlanAttnBackend: check_forced_plan,
    f.StateMachineCarryAttnBackend: check_state_machine,
    f.RuntimeSubclassAttnBackend: check_runtime_subclass,
    f.MappingViewAttnBackend: check_mapping_view,
    f.WindowLayerCountAttnBackend: check_window_layer_count,
    f.LayerPairsAttnBackend: check_layer_pairs,
}


# ----------------------------------------------------------------- twins: held state is live


def _live_window(live):
    return live.swa_kv_pool if _swa(live) else live


LIVE_CHECKS = {
    f.LiveStagePipelineAttnBackend: lambda b, live: b.stages[1].get_pool() is live,
    f.SlotsRecordPerForwardAttnBackend: lambda b, live: b.kv_rec.window_pool is (
        live.swa_kv_pool if _swa(live) else None),
    f.LiveCallbackTableAttnBackend: lambda b, live: (
        "pool" not in b.callbacks["kv_ids"].__code__.co_freevars),
    f.ValidatedWeakPoolsAttnBackend: lambda b, live: (
        b._pools["source"] is live and b._pools["window"] is _live_window(live)),
    f.CachedGeometryLayoutAttnBackend: lambda b, live: b.layout.head_dim == live.head_dim,
    f.ForcedGeometryPlanAttnBackend: lambda b, live: b.plan._window_pages == -(-bb.WINDOW // 4),
    f.LiveStateMachineAttnBackend: lambda b, live: b.fsm.state.pool is live,
    f.ResolvedLayerArrayAttnBackend: lambda b, live: (
        b._swa_kv_pool is (live if _swa(live) else None)),
}


def _view(run):
    """The swap ``guard_forms.launch`` applies."""
    swapped = run.config in gf.SWAPPED
    if swapped and sc.backend_reads_own_pool():
        return sc.frozen_kv_view(run.batch, run.active, run.backend)
    if swapped:
        return bb._attribute_swap(run.backend, run.active)
    return contextlib.nullcontext()


def verify(cls, config):
    run = gf.scenario(cls, config)
    layer = sc.layer(LAYER)
    q = torch.zeros(run.batch.batch_size, 2 * 8, dtype=sc.DTYPE)
    k = v = torch.zeros(run.batch.batch_size, 1, 8, dtype=sc.DTYPE)
    with _view(run):
        run.backend.init_forward_metadata(run.batch)
        live = run.backend.token_to_kv_pool
        assert live is run.active, "the launch does not read the configuration's pool"
        held = resolve(run.backend, cls.STALE_STATE)
        CHECKS[cls](run, held, live)
        run.backend.forward(q, k, v, layer, run.batch)
    # outside the swap the backend is back on its own pool
    assert run.backend.token_to_kv_pool is run.runner.token_to_kv_pool


def test_every_class_has_its_check():
    assert set(CHECKS) == set(f.STALE) and set(LIVE_CHECKS) == set(f.CORRECT)


@pytest.mark.parametrize("cls, config", [(c, k) for c in f.STALE for k in c.CONFIGS],
                         ids=lambda v: getattr(v, "__name__", v))
def test_stale_material_holds_what_the_launch_does_not_read(cls, config):
    assert cls.EXPECT == "stale" and cls.STALE_STATE and cls.__doc__
    verify(cls, config)


@pytest.mark.parametrize("cls, config", [(c, k) for c in f.CORRECT for k in c.CONFIGS],
                         ids=lambda v: getattr(v, "__name__", v))
def test_correct_material_follows_the_active_pool(cls, config):
    assert cls.EXPECT == "correct" and cls.__doc__ and not hasattr(cls, "STALE_STATE")
    run = gf.scenario(cls, config)
    with _view(run):
        run.backend.init_forward_metadata(run.batch)
        assert LIVE_CHECKS[cls](run.backend, run.backend.token_to_kv_pool)
    assert gf.launch(run) is not None
