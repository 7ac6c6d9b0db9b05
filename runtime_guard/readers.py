"""How to read what one launch reads, per backend family (the table's ``reader`` column).

Each reader takes ``(backend, layer, forward_batch, pool, is_swa_layer)`` and returns
``(table, seq_lens, page_size, virtual)`` for the bounds check, or None when the launch has
nothing to read yet. ``virtual`` says which id space the table is in: True for the virtual ids
of a unified pool (SGLang #36403: ``req_to_token``'s ids, before the translator maps them),
which index the virtual space, not the physical buffer; False for physical ids (every
non-translating pool, page tables the translator built, SWA write ids). A table row holds the
function itself. Plain attribute reads; torch is only touched through the tensors the backend
already holds.
"""

from __future__ import annotations

from typing import Any


def layer_page_table(backend: Any, layer: Any, forward_batch: Any, pool: Any, is_swa: bool):
    """trtllm: ``backend._get_layer_page_table(layer, batch)``, the very table the kernel gets."""
    metadata = getattr(backend, "forward_metadata", None)
    if metadata is None:
        return None
    try:
        table = backend._get_layer_page_table(layer, forward_batch)
    except Exception:  # a mis-resolved backend can fail here; the pool check reported it
        table = getattr(metadata, "page_table", None)
    return _paged(table, metadata, backend)


def metadata_page_table(backend: Any, layer: Any, forward_batch: Any, pool: Any, is_swa: bool):
    """FlashAttention, XPU: ``forward_metadata.swa_page_table`` for SWA layers, else
    ``forward_metadata.page_table``."""
    metadata = getattr(backend, "forward_metadata", None)
    if metadata is None:
        return None
    swa_table = getattr(metadata, "swa_page_table", None) if is_swa else None
    table = swa_table if swa_table is not None else getattr(metadata, "page_table", None)
    return _paged(table, metadata, backend)


def write_locations(backend: Any, layer: Any, forward_batch: Any, pool: Any, is_swa: bool):
    """The token slots the launch writes K/V to (the SWA slots for an SWA layer), as a one-row
    table of page size 1."""
    if is_swa:
        locs = getattr(backend, "swa_out_cache_loc", None)
        if locs is None:
            locs = getattr(getattr(backend, "forward_metadata", None), "swa_out_cache_loc", None)
    else:
        locs = getattr(forward_batch, "out_cache_loc", None)
    if locs is None or locs.numel() == 0:
        return None
    row = locs.reshape(1, -1)
    return row, locs.new_full((1,), row.shape[1]), 1, not is_swa and _virtual_writes(
        backend, forward_batch)


def _virtual_writes(backend: Any, forward_batch: Any) -> bool:
    """A translating runner's batch carries physical write ids only once its plan bound them
    (``out_cache_loc_is_physical``); before that they are virtual."""
    translator = getattr(backend, "kv_index_translator", None)
    return bool(getattr(translator, "is_translating", False)) and not getattr(
        forward_batch, "out_cache_loc_is_physical", False)


def _paged(table: Any, metadata: Any, backend: Any):
    seq_lens = getattr(metadata, "cache_seqlens_int32", None)
    if table is None or seq_lens is None:
        return None
    return table, seq_lens, backend.page_size, False
