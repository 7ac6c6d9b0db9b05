"""The material of ``guard_forms15`` is what it says (no guard): each stale class, in every
configuration it names, holds state that is not what its launch reads under SGLang's own
per-forward swap (the ``# stale in ...`` comment of each class), and each correct twin's state
follows the active pool. A set whose stale classes were not stale would measure nothing."""

from __future__ import annotations

import contextlib
import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import guard_forms as gf  # noqa: E402
import guard_forms15 as f  # noqa: E402
import torch  # noqa: E402

bb, sc = gf.bb, gf.sc


def view(run):
    swapped = run.config in gf.SWAPPED
    if swapped and sc.backend_reads_own_pool():
        return sc.frozen_kv_view(run.batch, run.active, run.backend)
    return bb._attribute_swap(run.backend, run.active) if swapped else contextlib.nullcontext()


def window_pool(pool):
    return pool.swa_kv_pool if gf.is_swa(pool) else pool


def held(run):
    """(what the class holds, what the launch reads instead) under the swap."""
    b, own, active = run.backend, run.runner.token_to_kv_pool, run.active
    c = run.cls
    if c is f.FactoryLayerListAttnBackend:
        return b.layer_kv[0].pool, active.swa_kv_pool
    if c is f.ModuleSubmoduleAttnBackend:
        return b.kv_reader.window.kv_pool, active.swa_kv_pool
    if c is f.ModuleBufferSlotsAttnBackend:
        assert b.slot_index.full_to_swa is own.full_to_swa_index_mapping
        return b.slot_index.full_to_swa, active.full_to_swa_index_mapping
    if c is f.LayoutEnumDispatchAttnBackend:
        return b.kv_layout, f.KVLayout.WINDOWED
    if c is f.IndexSelectSlotsAttnBackend:
        assert not torch.equal(b.swa_slot_buf, active.full_to_swa_index_mapping)
        return b.swa_slot_buf, active.full_to_swa_index_mapping
    if c is f.DelegatingProxyAttnBackend:
        return b.kv._pool, active
    if c is f.WindowLayerCountAttnBackend:
        return b.num_window_layers, sum(w for _, w in active.layers_mapping.values())
    if c is f.PartialKeywordReaderAttnBackend:
        return b._gather_window.keywords["key_buffer"].__self__, active.swa_kv_pool
    if c is f.LayerTupleDictAttnBackend:
        return b.layer_slots[0][0], active.swa_kv_pool
    if c is f.SharedContextAttnBackend:
        return b.kv_ctx.kv_pool, active
    if c is f.GeneratorKeyReaderAttnBackend:
        return b._key_reader.gi_frame.f_locals["pool"], active
    if c is f.BuilderClassPoolAttnBackend:
        assert "kv_pool" not in vars(b.meta_builder)
        return b.meta_builder.kv_pool, active
    raise AssertionError(c)


@pytest.mark.parametrize("cls, config", [(c, k) for c in f.STALE for k in c.CONFIGS],
                         ids=lambda v: getattr(v, "__name__", v))
def test_stale_material_holds_what_the_launch_does_not_read(cls, config):
    assert cls.EXPECT == "stale" and cls.STALE_STATE and cls.__doc__
    run = gf.scenario(cls, config)
    with view(run):
        run.backend.init_forward_metadata(run.batch)
        mine, live = held(run)
        assert run.backend.token_to_kv_pool is run.active
        assert mine is not live
        if isinstance(mine, int):
            assert mine != live


@pytest.mark.parametrize("cls, config", [(c, k) for c in f.CORRECT for k in c.CONFIGS],
                         ids=lambda v: getattr(v, "__name__", v))
def test_correct_material_follows_the_active_pool(cls, config):
    assert cls.EXPECT == "correct" and cls.__doc__
    run = gf.scenario(cls, config)
    with view(run):
        run.backend.init_forward_metadata(run.batch)
        b, active = run.backend, run.active
        if cls is f.LayoutPerForwardAttnBackend:
            assert (b.kv_layout is f.KVLayout.WINDOWED) == gf.is_swa(active)
        if cls is f.RefilledSlotsAttnBackend and gf.is_swa(active):
            assert torch.equal(b.swa_slot_buf, active.full_to_swa_index_mapping)
        if cls is f.ValidatedLayerSlotsAttnBackend:
            assert b._slots_source is active
            assert b.layer_slots[0][0] is window_pool(active)
        if cls is f.LiveProxyAttnBackend:
            assert b.kv.get_key_buffer is not None and b.kv._owner is b
    assert gf.launch(gf.scenario(cls, config)) is not None
