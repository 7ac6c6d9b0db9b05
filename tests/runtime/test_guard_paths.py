"""Launch paths that read pool state outside the backend's own attributes, on SGLang's objects.

For each path (the runner's ``KVIndexTranslator``, FlashAttention's local-attention
``swa_translate``, a wrapper's inner backends, KV write buffers handed out before the launch,
the id space of the ids a launch writes): the stale state a FROZEN_KV MTP draft reaches under
SGLang's own ``frozen_kv_target_view`` is refused, naming the backend, the path and both pools;
the correct state passes; the fix repairs it. The hooks are the plugin's own, wrapping a
stand-in for the kernel (the CPU cannot run the real one).
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
from runtime_guard.checks import describe_pool, window_space  # noqa: E402
from runtime_guard.demo import scenarios as sc  # noqa: E402

SEQ = [5, 9]
ATTENTION = "sglang.srt.layers.attention."


def _module(name):
    kernel_shim.install()
    sc.sglang()
    try:
        return importlib.import_module(name)
    except ImportError as err:
        pytest.skip(f"{name} does not exist in this SGLang release: {err}")


def _needs_own_pool():
    if not sc.backend_reads_own_pool():
        pytest.skip("SGLang < 0.5.13 backends read the forward batch's pool, which the swap "
                    "replaces for every reader: no copy can go stale")


def _fixed_draft(kind="FROZEN_KV draft"):
    """A fixed trtllm backend (its own SWA state right) of ``kind`` and the pool it reads."""
    runner, reads = sc.configuration(kind)
    backend = sc.any_backend(sc.fixed_backend_module().FixedTRTLLMHAAttnBackend, runner)
    swa_table = sc.contiguous_page_table(SEQ, 4) % 8 if reads is not runner.token_to_kv_pool \
        or kind == "SWA target" else None
    sc.metadata(backend, SEQ, sc.contiguous_page_table(SEQ, 4), swa_table)
    return runner, reads, backend


def _launch(hooks, backend, runner, reads, kernel, layer_id=0):
    batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
    args = sc.decode_args(batch, layer_id)
    if reads is runner.token_to_kv_pool:
        return hooks.guard_launch(kernel, backend, *args)
    with sc.frozen_kv_view(batch, reads, backend):
        return hooks.guard_launch(kernel, backend, *args)


def _refused(hooks, backend, runner, reads, *parts):
    with pytest.raises(SWAPoolMismatchError) as caught:
        _launch(hooks, backend, runner, reads, lambda *a: pytest.fail("the kernel ran"))
    message = str(caught.value)
    for part in (type(backend).__name__, *parts):
        assert part in message, message
    return message


# -- 1. the runner's KVIndexTranslator -------------------------------------------------------

def _translator(runner, pool):
    """SGLang's own ``KVIndexTranslator``, built as ``ModelRunner`` builds it, over ``pool``."""
    module = _module("sglang.srt.mem_cache.kv_index_translator")
    return module.KVIndexTranslator(
        req_to_token=runner.req_to_token_pool.req_to_token,
        token_to_kv_pool_allocator=runner.token_to_kv_pool_allocator,
        token_to_kv_pool=pool, page_size=sc.PAGE, device="cpu",
        is_draft_worker=runner.is_draft_worker)


def test_a_translator_built_from_the_drafts_own_pool_is_refused(guard):
    hooks = guard("check")
    runner, target, backend = _fixed_draft()
    backend.kv_index_translator = _translator(runner, runner.token_to_kv_pool)
    _refused(hooks, backend, runner, target, "backend.kv_index_translator",
             "has no sliding-window id space", describe_pool(target),
             describe_pool(runner.token_to_kv_pool))


def test_a_translator_of_another_swa_pool_is_refused(guard):
    hooks = guard("check")
    runner, target, backend = _fixed_draft()
    twin = sc.swa_pool()
    sc.swa_allocator(twin)
    backend.kv_index_translator = _translator(runner, twin)
    _refused(hooks, backend, runner, target, "maps SWA write ids with " + describe_pool(twin),
             describe_pool(target))


@pytest.mark.parametrize("kind", ["SWA target", "non-SWA model", "EAGLE draft, own pool",
                                  "FROZEN_KV draft"])
def test_a_translator_of_the_pool_the_launch_reads_passes(kind, guard):
    hooks = guard("check")
    runner, reads, backend = _fixed_draft(kind)
    backend.kv_index_translator = _translator(runner, reads)
    reached = []
    _launch(hooks, backend, runner, reads, lambda *a: reached.append(a[0]))
    assert reached == [backend]


def test_the_fix_gives_the_launch_a_translator_of_the_target_pool(guard):
    hooks = guard("check", fix=True)
    runner, target, backend = _fixed_draft()
    own = _translator(runner, runner.token_to_kv_pool)
    backend.kv_index_translator = own
    seen = []
    kernel = lambda b, *a: seen.append(b.kv_index_translator)  # noqa: E731
    _launch(hooks, backend, runner, target, kernel)
    _launch(hooks, backend, runner, target, kernel)  # the second launch reuses it
    space = window_space(seen[0])
    assert seen[0] is seen[1] and space.write.__self__ is target
    _launch(hooks, backend, runner, runner.token_to_kv_pool, kernel)  # outside the view
    assert seen[2] is own


# -- 2. FlashAttention's local-attention swa_translate -------------------------------------

def _local_attention_fa(kind="FROZEN_KV draft"):
    _needs_own_pool()
    local = _module(ATTENTION + "local_attention")
    fa = _module(ATTENTION + "flashattention_backend")
    runner, reads = sc.configuration(kind)
    backend = sc.any_backend(fa.FlashAttentionBackend, runner)
    own = runner.token_to_kv_pool
    backend.local_attn_builder = local.LocalAttentionMetadataBuilder(
        attention_chunk_size=8, page_size=sc.PAGE, max_context_len=64, device="cpu",
        swa_translate=own.translate_loc_from_full_to_swa
        if isinstance(own, sc.sglang().SWAKVPool) else None)  # as FA's __init__ builds it
    return runner, reads, backend


def test_a_swa_translate_bound_at_init_is_refused(guard):
    hooks = guard("check")
    runner, target, backend = _local_attention_fa()
    backend.use_sliding_window_kv_pool = True  # the flag right: only the bound copy is stale
    _refused(hooks, backend, runner, target, "backend.local_attn_builder.swa_translate is None",
             "expected a method of " + describe_pool(target))
    twin = sc.swa_pool()
    backend.local_attn_builder.swa_translate = twin.translate_loc_from_full_to_swa
    _refused(hooks, backend, runner, target,
             "translate_loc_from_full_to_swa of " + describe_pool(twin))


@pytest.mark.parametrize("kind", ["SWA target", "non-SWA model", "EAGLE draft, own pool"])
def test_a_swa_translate_of_the_active_pool_passes(kind, guard):
    hooks = guard("check")
    runner, reads, backend = _local_attention_fa(kind)
    reached = []
    _launch(hooks, backend, runner, reads, lambda *a: reached.append(a[0]))
    assert reached == [backend]


def test_the_fix_rebinds_swa_translate_to_the_active_pool(guard):
    hooks = guard("check", fix=True)
    runner, target, backend = _local_attention_fa()
    seen = []
    kernel = lambda b, *a: seen.append(b.local_attn_builder.swa_translate)  # noqa: E731
    _launch(hooks, backend, runner, target, kernel)
    assert seen[0].__self__ is target
    assert seen[0].__func__ is type(target).translate_loc_from_full_to_swa


# -- 5. wrappers and their inner backends ---------------------------------------------------

def _wrapped(kind="FROZEN_KV draft"):
    """SGLang's two-batch-overlap wrapper around two fixed trtllm backends of one runner."""
    _needs_own_pool()
    tbo = _module(ATTENTION + "tbo_backend")
    runner, reads, primary = _fixed_draft(kind)
    child = sc.any_backend(type(primary), runner)
    child.forward_metadata = primary.forward_metadata
    return runner, reads, tbo.TboAttnBackend(primary, [child])


def test_a_wrapper_whose_swap_does_not_reach_its_inner_backend_is_refused(guard):
    hooks = guard("check")
    runner, target, wrapper = _wrapped()
    _refused(hooks, wrapper, runner, target, "inner backend primary (FixedTRTLLMHAAttnBackend)",
             f"reads {describe_pool(runner.token_to_kv_pool)}",
             f"the launch reads {describe_pool(target)}")


def test_an_inner_backend_with_stale_state_is_refused_through_its_wrapper(guard):
    hooks = guard("check")
    runner, target, wrapper = _wrapped()
    for inner in [wrapper.primary, *wrapper.children]:
        inner.token_to_kv_pool = target  # the pool reaches them ...
    wrapper.children[0]._swa_kv_pool = None  # ... but one still holds no SWA pool
    _refused(hooks, wrapper, runner, target, "FixedTRTLLMHAAttnBackend",
             "backend._swa_kv_pool is None")


@pytest.mark.parametrize("kind", ["SWA target", "non-SWA model", "EAGLE draft, own pool"])
def test_a_wrapper_and_inner_backends_on_one_pool_pass(kind, guard):
    hooks = guard("check")
    runner, reads, wrapper = _wrapped(kind)
    reached = []
    _launch(hooks, wrapper, runner, reads, lambda *a: reached.append(a[0]))
    assert reached == [wrapper]


def test_the_fix_propagates_the_wrappers_pool_to_every_inner_backend(guard):
    hooks = guard("check", fix=True)
    runner, target, wrapper = _wrapped()
    seen = []

    def kernel(b, *args):
        seen.extend((inner.token_to_kv_pool, inner._swa_kv_pool)
                    for inner in [b.primary, *b.children])

    _launch(hooks, wrapper, runner, target, kernel)
    assert seen == [(target, target), (target, target)]


# -- 6. KV written before the launch --------------------------------------------------------

def _write_buffers(backend, pool, slots):
    """What ``get_fused_kv_write_buffers`` hands a model: the layer's K/V buffers and slots."""
    return lambda b, layer, batch: (*pool.get_kv_buffer(layer.layer_id), slots)


def test_write_buffers_handed_out_under_stale_state_are_refused(guard):
    hooks = guard("check")
    runner, target, backend = _fixed_draft()
    backend._swa_kv_pool = None  # stale: built from the draft's own pool
    batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
    with sc.frozen_kv_view(batch, target, backend), pytest.raises(
            SWAPoolMismatchError, match=r"FixedTRTLLMHAAttnBackend .*layer 0 \(SWA\)"):
        hooks.guard_write_buffers(lambda *a: pytest.fail("buffers handed out"), backend,
                                  sc.layer(0), batch)


def test_write_slots_past_the_buffer_are_refused_before_the_write(guard):
    hooks = guard("bounds")
    runner, target, backend = _fixed_draft("SWA target")
    batch = sc.decode_batch(target, SEQ)
    rows = target.get_kv_buffer(0)[0].shape[0]
    good = hooks.guard_write_buffers(
        _write_buffers(backend, target, torch.tensor([1, rows - 1])), backend, sc.layer(0), batch)
    assert good[2].tolist() == [1, rows - 1]
    with pytest.raises(SWAPoolMismatchError, match=rf"writing K/V into SWAKVPool.*{rows}"):
        hooks.guard_write_buffers(_write_buffers(backend, target, torch.tensor([1, rows])),
                                  backend, sc.layer(0), batch)


def test_flashattention_write_buffers_are_hooked_by_the_plugin_plan():
    from runtime_guard import plugin
    from runtime_guard.config import GuardConfig

    fa = _module(ATTENTION + "flashattention_backend")
    if "get_fused_kv_write_buffers" not in vars(fa.FlashAttentionBackend):
        pytest.skip("this FlashAttention backend hands out no write buffers")
    covers = {c.target: c for c in plugin.plan(GuardConfig(mode="check"))}
    hooks = covers[ATTENTION + "flashattention_backend.FlashAttentionBackend"].hooks
    assert ("get_fused_kv_write_buffers", "guard_write_buffers") in hooks


# -- 7. id spaces ---------------------------------------------------------------------------

def test_write_ids_are_checked_in_their_own_id_space(guard):
    """Physical write ids against the layer's buffer; a translating runner's ids before the
    plan bound them are virtual and checked against the virtual space, never the buffer."""
    from runtime_guard import readers

    runner, target, backend = _fixed_draft("SWA target")
    backend.kv_index_translator = _translator(runner, target)
    batch = sc.decode_batch(target, SEQ)
    read = readers.write_locations(backend, sc.layer(1), batch, target, False)
    assert read[3] is False  # a non-translating pool: its ids are physical
    batch.out_cache_loc_is_physical = True
    assert readers.write_locations(backend, sc.layer(1), batch, target, False)[3] is False
