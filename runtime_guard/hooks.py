"""The AROUND hooks the plugin registers on every described SGLang attention backend.

One set of hooks for all backends; what they read comes from the backend's row in
``runtime_guard.backends``. With the fix on they first re-derive the backend's SWA state from
the pool it reads (``runtime_guard.fix``); with the guard on they run the O(1) checks of
``checks`` before the wrapped method reaches a kernel, and in ``bounds`` mode the launch hooks
also check the page table or token locations the launch gets (read by the row's ``reader``,
against the buffer of the id space the table is in), once per distinct table per forward (the
metadata hooks start a new forward). KV write buffers a model takes before the launch
(``get_fused_kv_write_buffers``) are checked before that write. Violations raise, or with
``SGLANG_POOLGUARD_ACTION=log`` are logged once per site.
"""

from __future__ import annotations

import logging
from typing import Any

from runtime_guard import liveness, seen
from runtime_guard.backends import spec_for
from runtime_guard.checks import (
    Problem,
    active_pool,
    describe_backend,
    describe_pool,
    find_backend_problem,
    inner_backends,
    record_runner,
)
from runtime_guard.config import GuardConfig, async_assert
from runtime_guard.errors import SWAPoolMismatchError
from runtime_guard.fix import follow_active_pool

logger = logging.getLogger("runtime_guard")

_config = GuardConfig()
_logged_sites: set = set()
_CHECKED = "_poolguard_checked"  # per-backend set of page tables already bounds-checked


def configure(config: GuardConfig) -> GuardConfig:
    """Set the mode and action the hooks follow (the plugin calls this at load); returns the
    configuration it replaces, so a demo can put it back. "Once per site" counts from here: a
    new configuration logs each site afresh."""
    global _config
    previous, _config = _config, config
    _logged_sites.clear()
    return previous


def current_config() -> GuardConfig:
    """The configuration the hooks follow now."""
    return _config


def report(problem: Problem, site: tuple) -> None:
    """Raise, or log the problem the first time it is seen at ``site``. A latent one (the
    launch does not read the state) follows SGLANG_INVARIANT_CHECK: strict raises, warn (the
    default) logs once, off is silent; a live one follows SGLANG_POOLGUARD_ACTION."""
    action = _config.action if problem.live else {"strict": "raise"}.get(_config.latent, "log")
    if action == "raise":
        raise SWAPoolMismatchError(problem.message)
    key = (problem.kind,) + site
    if key not in _logged_sites and (problem.live or _config.latent != "off"):
        _logged_sites.add(key)
        (logger.error if problem.live else logger.warning)("%s", problem.message)


def guard_init(original, backend, model_runner, *args, **kwargs):
    """AROUND ``__init__``: construct, record what the runner says of role and allocator
    (messages and the fix's resolver need it), then resolve the state if fixing."""
    result = original(backend, model_runner, *args, **kwargs)
    if hasattr(model_runner, "token_to_kv_pool_allocator"):  # wrappers get backends, not runners
        record_runner(backend, model_runner)
    if _config.fix:
        follow_active_pool(backend)
    return result


def guard_graph_state(original, backend, *args, **kwargs):
    """AROUND ``init_cuda_graph_state``: its buffers are sized by the SWA flag, so the fix
    resolves the state first. Not a launch: nothing to check."""
    if _config.fix:
        follow_active_pool(backend)
    return original(backend, *args, **kwargs)


def guard_metadata(original, backend, *args, **kwargs):
    """AROUND the metadata paths (eager, capture, replay): fix, then check before the metadata
    kernels translate indices, then start a new forward for the bounds cache."""
    batch = args[0] if args else kwargs.get("forward_batch")
    if type(backend) not in seen.SEEN:  # a subclass loaded after the plugin: hooked now
        seen.first_sight(type(backend))
    if _config.fix:
        follow_active_pool(backend, batch)
    if _config.guarding:
        _check(backend, None, batch, ("metadata", type(backend).__name__))
    result = original(backend, *args, **kwargs)
    _new_forward(backend)
    return result


def guard_launch(original, backend, *args, **kwargs):
    """AROUND ``forward_decode``/``forward_extend``: fix, then check before the KV write and
    the kernel."""
    layer = args[3] if len(args) > 3 else kwargs.get("layer")
    batch = args[4] if len(args) > 4 else kwargs.get("forward_batch")
    if _config.fix:
        follow_active_pool(backend, batch)
    if _config.guarding:
        layer_id = getattr(layer, "layer_id", None)
        writes = kwargs.get("save_kv_cache", args[5] if len(args) > 5 else True)
        _check(backend, layer_id, batch, ("launch", type(backend).__name__, layer_id), writes)
        if _config.bounds and layer is not None:
            check_launch_bounds(backend, layer, batch)
    return original(backend, *args, **kwargs)


def guard_write_buffers(original, backend, layer, forward_batch, *args, **kwargs):
    """AROUND ``get_fused_kv_write_buffers``: the model writes K/V into what this returns
    before any launch, so the state is checked first and, in bounds mode, the slots against
    the very buffer returned."""
    if _config.fix:
        follow_active_pool(backend, forward_batch)
    layer_id = getattr(layer, "layer_id", None)
    if _config.guarding:
        _check(backend, layer_id, forward_batch, ("write", type(backend).__name__, layer_id))
    result = original(backend, layer, forward_batch, *args, **kwargs)
    if _config.bounds and result is not None:
        _check_write_slots(backend, layer_id, forward_batch, result)
    return result


def _check_write_slots(backend: Any, layer_id: Any, batch: Any, buffers: tuple) -> None:
    from runtime_guard import bounds

    k_buffer, _, slots = buffers
    if slots.numel() == 0:
        return
    row = slots.reshape(1, -1)
    pool = active_pool(backend, batch)
    where = f"{describe_backend(backend, layer_id, pool)} writing K/V into {describe_pool(pool)}"
    problem = bounds.find_bounds_problem(row, row.new_full((1,), row.shape[1]), 1,
                                         k_buffer.shape[0], where)
    if problem is not None:
        report(liveness.classify(problem, backend, batch),
               ("write-bounds", type(backend).__name__, layer_id))


def _check(backend: Any, layer_id: Any, batch: Any, site: tuple, save_kv_cache=True) -> None:
    problem = find_backend_problem(backend, layer_id, batch)
    if problem is not None:
        report(liveness.classify(problem, backend, batch, save_kv_cache), site)


def _new_forward(backend: Any) -> None:
    backend.__dict__[_CHECKED] = set()
    spec = spec_for(type(backend))
    steps = (getattr(backend, spec.children, None) or ()) if spec.children else ()
    for child in list(steps) + [inner for _, inner in inner_backends(backend, spec)]:
        child.__dict__[_CHECKED] = set()


def check_launch_bounds(backend: Any, layer: Any, forward_batch: Any) -> None:
    """Bounds-check what this layer's launch reads, unless that table was checked this forward."""
    pool = active_pool(backend, forward_batch)
    read = launch_table(backend, layer, forward_batch, pool)
    if read is None:
        return
    table, seq_lens, page_size, is_swa, virtual = read
    checked = backend.__dict__.setdefault(_CHECKED, set())
    # Not keyed on table._version: SGLang runs forwards under inference_mode, where tensors
    # have no version counter. The metadata hooks clear the set for every new forward.
    key = (id(table), id(pool), is_swa)
    if key in checked:
        return
    checked.add(key)
    num_pages, space = _id_space_pages(backend, pool, layer.layer_id, page_size, virtual)
    where = f"{describe_backend(backend, layer.layer_id, pool)} reading {space}"
    from runtime_guard import bounds

    if _device_assert_only(table):
        bounds.assert_page_bounds_async(
            table, seq_lens, page_size, num_pages,
            f"poolguard: {where}: page index >= {num_pages} pages of the KV buffer",
        )
        return
    problem = bounds.find_bounds_problem(table, seq_lens, page_size, num_pages, where)
    if problem is not None:
        report(liveness.classify(problem, backend, forward_batch),
               ("bounds", type(backend).__name__, layer.layer_id))


def _id_space_pages(backend: Any, pool: Any, layer_id: int, page_size: int, virtual: bool):
    """(pages, description) of the buffer the table's id space indexes: the unified pool's
    virtual space for virtual ids, else the layer's physical KV buffer in ``pool``."""
    if virtual:
        tokens = backend.kv_index_translator.capture_token_capacity(0)
        return tokens // page_size, f"the virtual id space of {describe_pool(pool)} ({tokens} ids)"
    return pool.get_kv_buffer(layer_id)[0].shape[0] // page_size, describe_pool(pool)


def launch_table(backend: Any, layer: Any, forward_batch: Any, pool: Any):
    """(table, seq_lens, page_size, is_swa_layer, virtual) of what the launch reads, by the
    row's ``reader``; None when the row has no reader or the launch has nothing yet."""
    reader = spec_for(type(backend)).reader
    if pool is None or reader is None:
        return None
    mapping = getattr(pool, "layers_mapping", None)
    is_swa = bool(mapping and mapping.get(layer.layer_id, (0, False))[1])
    read = reader(backend, layer, forward_batch, pool, is_swa)
    if read is None:
        return None
    table, seq_lens, page_size, virtual = read
    return table, seq_lens, page_size, is_swa, virtual


def _device_assert_only(table: Any) -> bool:
    """No host sync inside CUDA-graph capture; with SGLANG_ENABLE_ASYNC_ASSERT set (SGLang's
    switch for its own async probes) eager GPU launches use the device assert too."""
    if not getattr(table, "is_cuda", False):
        return False
    import torch

    if torch.cuda.is_current_stream_capturing():
        return True
    return async_assert()
