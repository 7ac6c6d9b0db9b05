"""The AROUND hooks the plugin registers on every described SGLang attention backend.

One set of hooks for all backends; what they read comes from the backend's row in
``runtime_guard.backends``. With the fix on they first re-derive the backend's SWA state from
the pool it reads (``runtime_guard.state``); with the guard on they run the O(1) checks of
``checks`` before the wrapped method reaches a kernel, and in ``bounds`` mode the launch hooks
also check the page table or token locations the launch gets, once per distinct table per
forward (the metadata hooks start a new forward). Violations raise, or with
``SGLANG_POOLGUARD_ACTION=log`` are logged once per site.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from runtime_guard import backends
from runtime_guard.backends import spec_for
from runtime_guard.checks import (
    Problem,
    active_pool,
    describe_backend,
    describe_pool,
    find_backend_problem,
    record_runner,
)
from runtime_guard.config import GuardConfig
from runtime_guard.errors import SWAPoolMismatchError
from runtime_guard.state import follow_active_pool

logger = logging.getLogger("runtime_guard")

_config = GuardConfig()
_logged_sites: set = set()
_CHECKED = "_poolguard_checked"  # per-backend set of page tables already bounds-checked


def configure(config: GuardConfig) -> GuardConfig:
    """Set the mode and action the hooks follow (the plugin calls this at load); returns the
    configuration it replaces, so a demo can put it back."""
    global _config
    previous, _config = _config, config
    return previous


def report(problem: Problem, site: tuple) -> None:
    """Raise, or log the problem the first time it is seen at ``site``."""
    if _config.action == "raise":
        raise SWAPoolMismatchError(problem.message)
    key = (problem.kind,) + site
    if key not in _logged_sites:
        _logged_sites.add(key)
        logger.error("%s", problem.message)


def guard_init(original, backend, model_runner, *args, **kwargs):
    """AROUND ``__init__``: construct, record what the runner says of role and allocator
    (messages and the fix's resolver need it), then resolve the state if fixing."""
    result = original(backend, model_runner, *args, **kwargs)
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
        _check(backend, layer_id, batch, ("launch", type(backend).__name__, layer_id))
        if _config.bounds and layer is not None:
            check_launch_bounds(backend, layer, batch)
    return original(backend, *args, **kwargs)


def _check(backend: Any, layer_id: Any, batch: Any, site: tuple) -> None:
    problem = find_backend_problem(backend, layer_id, batch)
    if problem is not None:
        report(problem, site)


def _new_forward(backend: Any) -> None:
    backend.__dict__[_CHECKED] = set()
    children = spec_for(type(backend)).children
    for child in (getattr(backend, children, None) or ()) if children else ():
        child.__dict__[_CHECKED] = set()


def check_launch_bounds(backend: Any, layer: Any, forward_batch: Any) -> None:
    """Bounds-check what this layer's launch reads, unless that table was checked this forward."""
    pool = active_pool(backend, forward_batch)
    read = launch_table(backend, layer, forward_batch, pool)
    if read is None:
        return
    table, seq_lens, page_size, is_swa = read
    checked = backend.__dict__.setdefault(_CHECKED, set())
    # Not keyed on table._version: SGLang runs forwards under inference_mode, where tensors
    # have no version counter. The metadata hooks clear the set for every new forward.
    key = (id(table), id(pool), is_swa)
    if key in checked:
        return
    checked.add(key)
    num_pages = pool.get_kv_buffer(layer.layer_id)[0].shape[0] // page_size
    where = f"{describe_backend(backend, layer.layer_id, pool)} reading {describe_pool(pool)}"
    from runtime_guard import bounds

    if _device_assert_only(table):
        bounds.assert_page_bounds_async(
            table, seq_lens, page_size, num_pages,
            f"poolguard: {where}: page index >= {num_pages} pages of the KV buffer",
        )
        return
    problem = bounds.find_bounds_problem(table, seq_lens, page_size, num_pages, where)
    if problem is not None:
        report(problem, ("bounds", type(backend).__name__, layer.layer_id))


def launch_table(backend: Any, layer: Any, forward_batch: Any, pool: Any):
    """(table, seq_lens, page_size, is_swa_layer) of what the launch reads, by the backend's
    ``reader``; None when the backend's row has no reader or the launch has nothing yet."""
    metadata = getattr(backend, "forward_metadata", None)
    reader = spec_for(type(backend)).reader
    if pool is None or reader is None:
        return None
    mapping = getattr(pool, "layers_mapping", None)
    is_swa = bool(mapping and mapping.get(layer.layer_id, (0, False))[1])
    if reader == backends.LAYER_PAGE_TABLE and metadata is not None:
        table = _layer_page_table(backend, layer, forward_batch, metadata)
        return _paged(table, metadata, backend, is_swa)
    if reader == backends.METADATA_PAGE_TABLE and metadata is not None:
        swa_table = getattr(metadata, "swa_page_table", None) if is_swa else None
        table = swa_table if swa_table is not None else getattr(metadata, "page_table", None)
        return _paged(table, metadata, backend, is_swa)
    if reader == backends.WRITE_LOCATIONS:
        return _write_locations(backend, metadata, forward_batch, is_swa)
    return None


def _paged(table, metadata, backend, is_swa):
    seq_lens = getattr(metadata, "cache_seqlens_int32", None)
    if table is None or seq_lens is None:
        return None
    return table, seq_lens, backend.page_size, is_swa


def _write_locations(backend, metadata, forward_batch, is_swa):
    """The token slots the launch writes K/V to, as a one-row table of page size 1."""
    if is_swa:
        locs = getattr(backend, "swa_out_cache_loc", None)
        if locs is None:
            locs = getattr(metadata, "swa_out_cache_loc", None)
    else:
        locs = getattr(forward_batch, "out_cache_loc", None)
    if locs is None or locs.numel() == 0:
        return None
    row = locs.reshape(1, -1)
    return row, locs.new_full((1,), row.shape[1]), 1, is_swa


def _layer_page_table(backend, layer, forward_batch, metadata):
    # Ask the backend's own routing, so the check sees exactly the table the kernel gets.
    try:
        return backend._get_layer_page_table(layer, forward_batch)
    except Exception:  # a mis-resolved backend can fail here; the pool check reported it
        return getattr(metadata, "page_table", None)


def _device_assert_only(table: Any) -> bool:
    """No host sync inside CUDA-graph capture; with SGLANG_ENABLE_ASYNC_ASSERT set (SGLang's
    switch for its own async probes) eager GPU launches use the device assert too."""
    if not getattr(table, "is_cuda", False):
        return False
    import torch

    if torch.cuda.is_current_stream_capturing():
        return True
    return os.environ.get("SGLANG_ENABLE_ASYNC_ASSERT", "").lower() in ("1", "true", "yes")
