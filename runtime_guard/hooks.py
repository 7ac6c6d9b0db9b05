"""The AROUND hooks the plugin registers on SGLang's trtllm MHA backend, and their state.

Each hook runs the O(1) checks of ``checks`` before the wrapped method reaches a kernel;
in ``bounds`` mode the launch hooks also check page indices, once per distinct page table
per forward (the metadata hooks start a new forward). Violations raise, or with
``SGLANG_POOLGUARD_ACTION=log`` are logged once per site.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from runtime_guard.checks import (
    Problem,
    active_pool,
    describe_backend,
    describe_pool,
    find_backend_problem,
)
from runtime_guard.config import GuardConfig
from runtime_guard.errors import SWAPoolMismatchError

logger = logging.getLogger("runtime_guard")

_config = GuardConfig()
_logged_sites: set = set()
_CHECKED = "_poolguard_checked"  # per-backend set of page tables already bounds-checked


def configure(config: GuardConfig) -> None:
    """Set the mode and action the hooks follow (the plugin calls this at load)."""
    global _config
    _config = config


def report(problem: Problem, site: tuple) -> None:
    """Raise, or log the problem the first time it is seen at ``site``."""
    if _config.action == "raise":
        raise SWAPoolMismatchError(problem.message)
    key = (problem.kind,) + site
    if key not in _logged_sites:
        _logged_sites.add(key)
        logger.error("%s", problem.message)


def record_role(backend: Any, model_runner: Any) -> None:
    """Remember draft/target and the speculative algorithm; they only enrich messages."""
    is_draft = getattr(model_runner, "is_draft_worker", None)
    role = "role unknown" if is_draft is None else ("draft" if is_draft else "target")
    algorithm = getattr(model_runner, "spec_algorithm", None)
    backend._poolguard_role = (role, getattr(algorithm, "name", algorithm))


def guard_init(original, backend, model_runner, *args, **kwargs):
    """AROUND ``__init__``: construct, then record the role for later messages."""
    result = original(backend, model_runner, *args, **kwargs)
    record_role(backend, model_runner)
    return result


def guard_metadata(original, backend, *args, **kwargs):
    """AROUND the metadata paths (eager, capture, replay): check identity before the
    metadata kernels translate indices, then start a new forward for the bounds cache."""
    batch = args[0] if args else kwargs.get("forward_batch")
    problem = find_backend_problem(backend, None, batch)
    if problem is not None:
        report(problem, ("metadata", type(backend).__name__))
    result = original(backend, *args, **kwargs)
    backend.__dict__[_CHECKED] = set()
    return result


def guard_launch(original, backend, *args, **kwargs):
    """AROUND ``forward_decode``/``forward_extend``: check before the KV write and the kernel."""
    layer = args[3] if len(args) > 3 else kwargs.get("layer")
    batch = args[4] if len(args) > 4 else kwargs.get("forward_batch")
    layer_id = getattr(layer, "layer_id", None)
    problem = find_backend_problem(backend, layer_id, batch)
    if problem is not None:
        report(problem, ("launch", type(backend).__name__, layer_id))
    if _config.bounds and layer is not None:
        check_launch_bounds(backend, layer, batch)
    return original(backend, *args, **kwargs)


def check_launch_bounds(backend: Any, layer: Any, forward_batch: Any) -> None:
    """Bounds-check the page table this layer's launch gets, unless already done this forward."""
    metadata = getattr(backend, "forward_metadata", None)
    pool = active_pool(backend, forward_batch)
    if metadata is None or pool is None:
        return
    table = _layer_page_table(backend, layer, forward_batch, metadata)
    if table is None:
        return
    checked = backend.__dict__.setdefault(_CHECKED, set())
    mapping = getattr(pool, "layers_mapping", None)
    is_swa = bool(mapping and mapping.get(layer.layer_id, (0, False))[1])
    # Not keyed on table._version: SGLang runs forwards under inference_mode, where tensors
    # have no version counter. The metadata hooks clear the set for every new forward.
    key = (id(table), id(pool), is_swa)
    if key in checked:
        return
    checked.add(key)
    page_size = backend.page_size
    num_pages = pool.get_kv_buffer(layer.layer_id)[0].shape[0] // page_size
    seq_lens = metadata.cache_seqlens_int32
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
