"""Page-index bounds: every page a launch will read must exist in the KV buffer it is given.

A trtllm decode/extend launch reads, for each row ``r < batch``, the first
``ceil(cache_seqlens[r] / page_size)`` entries of its page table. Rows past the batch and
columns past a row's length are padding (often uninitialised memory) and are never read, so
they are never checked. Torch is imported inside the functions: ``import runtime_guard``
must work without it.
"""

from __future__ import annotations

from typing import Any, Optional

from runtime_guard.checks import Problem
from runtime_guard.errors import SWAPoolMismatchError


def _rows(page_table: Any, seq_lens: Any):
    rows = min(int(page_table.shape[0]), int(seq_lens.shape[0]))
    return page_table[:rows], seq_lens[:rows]


def _unread_mask(table: Any, lens: Any, page_size: int):
    """True where the launch does not read: columns at or past ``ceil(len / page_size)``."""
    import torch

    pages_read = (lens.to(device=table.device, dtype=torch.int32) + (page_size - 1)) // page_size
    columns = torch.arange(table.shape[1], device=table.device, dtype=torch.int32)
    return columns.unsqueeze(0) >= pages_read.unsqueeze(1)


def _read_extremes(table: Any, lens: Any, page_size: int):
    """Device tensors (min, max) over the entries read; unread entries count as page 0,
    which every buffer has, so they can never raise an alarm."""
    import torch

    return torch.aminmax(table.masked_fill(_unread_mask(table, lens, page_size), 0))


def _in_range(extremes: Any, num_pages: int) -> bool:
    """One device-to-host copy for both extremes (two ``int()`` calls would copy twice)."""
    import torch

    low, high = torch.stack(tuple(extremes)).tolist()
    return low >= 0 and high < num_pages


def find_bounds_problem(
    page_table: Any, seq_lens: Any, page_size: int, num_pages: int, where: str = ""
) -> Optional[Problem]:
    """Host check (synchronises with the device): the first out-of-range read, or None."""
    import torch

    table, lens = _rows(page_table, seq_lens)
    if table.numel() == 0:
        return None
    # Fast path: a table whose every entry is in range needs no mask (CUDA-graph buffers).
    if _in_range(torch.aminmax(table), num_pages):
        return None
    if _in_range(_read_extremes(table, lens, page_size), num_pages):
        return None
    return _describe(table, lens, page_size, num_pages, where)


def _describe(table: Any, lens: Any, page_size: int, num_pages: int, where: str) -> Problem:
    read = ~_unread_mask(table, lens, page_size)
    bad = read & ((table >= num_pages) | (table < 0))
    row, col = (int(i) for i in bad.nonzero()[0])
    values = table[read]
    return Problem(
        "bounds",
        f"poolguard: {where + ': ' if where else ''}page table row {row} column {col} holds "
        f"page {int(table[row, col])}, outside the KV buffer's {num_pages} pages (valid "
        f"0..{num_pages - 1}; pages read span {int(values.min())}..{int(values.max())}, "
        f"page_size {page_size}); the kernel would read past the buffer.",
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

    table, lens = _rows(page_table, seq_lens)
    if table.numel() == 0:
        return
    low, high = _read_extremes(table, lens, page_size)
    torch._assert_async(torch.logical_and(low >= 0, high < num_pages), message)
