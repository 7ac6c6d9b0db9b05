"""Page-index bounds: every page a launch will read must exist in the KV buffer it is given.

A trtllm decode/extend launch reads, for each row ``r < batch``, the first
``ceil(cache_seqlens[r] / page_size)`` entries of its page table. Rows past the batch and
columns past a row's length are padding and are never read, so they are never checked.
Torch is imported inside the functions: ``import runtime_guard`` must work without it.
"""

from __future__ import annotations

from typing import Any, Optional

from runtime_guard.checks import Problem
from runtime_guard.errors import SWAPoolMismatchError


def _read_mask_and_bad(page_table: Any, seq_lens: Any, page_size: int, num_pages: int):
    """Device-side tensors: which entries the launch reads and which of those are invalid."""
    import torch

    rows = min(int(page_table.shape[0]), int(seq_lens.shape[0]))
    table = page_table[:rows]
    lens = seq_lens[:rows].to(device=table.device, dtype=torch.int64)
    pages_read = (lens + (page_size - 1)) // page_size
    columns = torch.arange(table.shape[1], device=table.device)
    read = columns.unsqueeze(0) < pages_read.unsqueeze(1)
    bad = read & ((table >= num_pages) | (table < 0))
    return table, read, bad


def find_bounds_problem(
    page_table: Any, seq_lens: Any, page_size: int, num_pages: int, where: str = ""
) -> Optional[Problem]:
    """Host check (synchronises with the device once): the first out-of-range read, or None."""
    if page_table.numel() == 0 or seq_lens.numel() == 0:
        return None
    table, read, bad = _read_mask_and_bad(page_table, seq_lens, page_size, num_pages)
    if not bool(bad.any()):
        return None
    row, col = (int(i) for i in bad.nonzero()[0])
    largest = int(table[read].max())
    smallest = int(table[read].min())
    return Problem(
        "bounds",
        f"poolguard: {where + ': ' if where else ''}page table row {row} column {col} holds "
        f"page {int(table[row, col])}, outside the KV buffer's {num_pages} pages (valid "
        f"0..{num_pages - 1}; pages read span {smallest}..{largest}, page_size {page_size}); "
        f"the kernel would read past the buffer.",
    )


def verify_page_bounds(page_table: Any, seq_lens: Any, page_size: int, num_pages: int) -> None:
    """Raise ``SWAPoolMismatchError`` if a page index the launch reads is ``>= num_pages``
    (or negative). Only rows ``< len(seq_lens)`` and columns ``< ceil(seq_len / page_size)``
    are read; padding elsewhere is ignored. Synchronises once with the tensors' device."""
    problem = find_bounds_problem(page_table, seq_lens, page_size, num_pages)
    if problem is not None:
        raise SWAPoolMismatchError(problem.message)


def assert_page_bounds_async(
    page_table: Any, seq_lens: Any, page_size: int, num_pages: int, message: str
) -> None:
    """Same condition as ``verify_page_bounds`` as a device-side assert: no host sync, so it is
    safe inside CUDA-graph capture (the assert is recorded and runs on every replay)."""
    import torch

    if page_table.numel() == 0 or seq_lens.numel() == 0:
        return
    _, _, bad = _read_mask_and_bad(page_table, seq_lens, page_size, num_pages)
    torch._assert_async(torch.logical_not(bad.any()), message)
