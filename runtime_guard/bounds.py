"""Page-index bounds: every page a launch will read must exist in the KV buffer it is given.

A trtllm decode/extend launch reads, for each request ``r < len(seq_lens)``, row ``r`` of its
page table and, in that row, the first ``ceil(seq_lens[r] / page_size)`` entries. So the
launch is in bounds when (a) the table has a row for every request, (b) every row is wide
enough for its request's pages, and (c) every entry read is a page of the KV buffer
(``0 <= page < num_pages``). Rows past the batch and columns past a row's length are
padding (often uninitialised memory) and are never read, so they are never checked.

Two implementations of the same condition:

* ``find_bounds_problem`` / ``verify_page_bounds``: host check, one device sync, a message
  naming the first bad row and column (CPU tensors, debugging, eager host mode).
* ``assert_page_bounds_async``: no host sync, safe inside CUDA-graph capture. On a CUDA
  tensor it is one fused Triton kernel, one program per request row: a masked range check
  over exactly the entries that row's launch reads, plus conditions (a) and (b), and a
  device assert in the kernel. One launch, no allocation, no reduction. On other devices the
  same condition is built from torch ops and asserted with ``torch._assert_async``.
* ``launch_fused_check``: the same kernel writing a verdict into a cached per-device scalar
  instead of asserting (a flag for callers that want one; the tests use it).

Torch and Triton are imported inside the functions: ``import runtime_guard`` must work
without them, and Triton is imported only when a CUDA tensor is checked.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

from runtime_guard.checks import Problem
from runtime_guard.errors import SWAPoolMismatchError

logger = logging.getLogger("runtime_guard")

_kernel = None  # the Triton kernel, built on first use (needs Triton)
_fused_failure: Optional[str] = None  # why the fused kernel is not used, once it failed
_state: dict = {}  # device -> (int32[3] state buffer, its verdict element)
_VERDICT = 2  # state layout: [violation flag, programs finished, verdict (1 = in bounds)]


def _pages_read(lens: Any, page_size: int, device: Any):
    """Pages each request reads: ``ceil(len / page_size)`` (nothing for a length <= 0)."""
    import torch

    lens = lens.to(device=device, dtype=torch.int64)
    return ((lens + (page_size - 1)) // page_size).clamp_(min=0)


def _unread_mask(table: Any, lens: Any, page_size: int):
    """True where the launch does not read: columns at or past ``ceil(len / page_size)``."""
    import torch

    columns = torch.arange(table.shape[1], device=table.device)
    return columns.unsqueeze(0) >= _pages_read(lens, page_size, table.device).unsqueeze(1)


def _read_extremes(table: Any, lens: Any, page_size: int):
    """Device tensors (min, max) over the entries read; unread entries count as page 0,
    which every buffer has, so they can never raise an alarm."""
    import torch

    return torch.aminmax(table.masked_fill(_unread_mask(table, lens, page_size), 0))


def _prefix(where: str) -> str:
    return f"poolguard: {where + ': ' if where else ''}"


def _too_many_requests(rows: int, batch: int, where: str) -> Problem:
    return Problem(
        "bounds",
        f"{_prefix(where)}{batch} requests (seq_lens) but the page table has {rows} rows; "
        f"the kernel would read rows past the table.",
    )


def find_bounds_problem(
    page_table: Any, seq_lens: Any, page_size: int, num_pages: int, where: str = ""
) -> Optional[Problem]:
    """Host check (synchronises once with the device): the first out-of-bounds read, or None.

    Out of bounds: more requests than table rows, a request needing more pages than its row
    holds, or a page read outside ``0..num_pages - 1``."""
    import torch

    rows, width = int(page_table.shape[0]), int(page_table.shape[1])
    batch = int(seq_lens.shape[0])
    if batch > rows:
        return _too_many_requests(rows, batch, where)
    if batch == 0:
        return None
    table, lens = page_table[:batch], seq_lens
    needed = _pages_read(lens, page_size, table.device)
    if width == 0:
        most, low, high = int(needed.max()), 0, 0
    else:  # one device-to-host copy for all three numbers
        most, low, high = torch.stack(
            (needed.max(), table.min().long(), table.max().long())
        ).tolist()
    if most > width:
        return _describe_short_row(needed, lens, width, page_size, where)
    # Fast path: a table whose every entry is in range needs no mask (CUDA-graph buffers).
    if low >= 0 and high < num_pages:
        return None
    low, high = torch.stack(tuple(_read_extremes(table, lens, page_size))).tolist()
    if low >= 0 and high < num_pages:
        return None
    return _describe(table, lens, page_size, num_pages, where)


def _describe_short_row(needed: Any, lens: Any, width: int, page_size: int, where: str):
    row = int((needed > width).nonzero()[0])
    return Problem(
        "bounds",
        f"{_prefix(where)}request {row} has seq_len {int(lens[row])}, which needs "
        f"{int(needed[row])} pages of {page_size} tokens, but its page table row holds "
        f"{width}; the kernel would read past the row.",
    )


def _describe(table: Any, lens: Any, page_size: int, num_pages: int, where: str) -> Problem:
    read = ~_unread_mask(table, lens, page_size)
    bad = read & ((table >= num_pages) | (table < 0))
    row, col = (int(i) for i in bad.nonzero()[0])
    values = table[read]
    return Problem(
        "bounds",
        f"{_prefix(where)}page table row {row} column {col} holds "
        f"page {int(table[row, col])}, outside the KV buffer's {num_pages} pages (valid "
        f"0..{num_pages - 1}; pages read span {int(values.min())}..{int(values.max())}, "
        f"page_size {page_size}); the kernel would read past the buffer.",
    )


def verify_page_bounds(page_table: Any, seq_lens: Any, page_size: int, num_pages: int) -> None:
    """Raise ``SWAPoolMismatchError`` if the launch would read out of bounds: more requests
    than table rows, a request needing more pages than its row holds, or a page index read
    that is ``>= num_pages`` or negative. Only rows ``< len(seq_lens)`` and columns
    ``< ceil(seq_len / page_size)`` are read; padding elsewhere is ignored. Synchronises once
    with the tensors' device. Arguments of the wrong kind are a ``TypeError`` or ``ValueError``
    naming the argument (this is the public entry; the hooks pass what SGLang built)."""
    _check_arguments(page_table, seq_lens, page_size, num_pages)
    problem = find_bounds_problem(page_table, seq_lens, page_size, num_pages)
    if problem is not None:
        raise SWAPoolMismatchError(problem.message)


def _check_arguments(page_table: Any, seq_lens: Any, page_size: Any, num_pages: Any) -> None:
    import operator

    for name, value, least in (("page_size", page_size, 1), ("num_pages", num_pages, 0)):
        try:
            number = operator.index(value)
        except TypeError:
            number = None
        if number is None or isinstance(value, bool) or number < least:
            kind = "a positive" if least else "a non-negative"
            raise ValueError(f"verify_page_bounds: {name} must be {kind} integer, got {value!r}")
    for name, value, dims in (("page_table", page_table, 2), ("seq_lens", seq_lens, 1)):
        if not callable(getattr(value, "dim", None)) or value.dim() != dims or (
                value.is_floating_point()):
            shape = f" of shape {tuple(value.shape)}" if hasattr(value, "shape") else ""
            raise TypeError(f"verify_page_bounds: {name} must be a {dims}-D integer tensor, "
                            f"got {type(value).__name__}{shape}")


def assert_page_bounds_async(
    page_table: Any, seq_lens: Any, page_size: int, num_pages: int, message: str
) -> None:
    """Same condition as ``verify_page_bounds`` as a device-side assert: no host sync, so it is
    safe inside CUDA-graph capture (the check is recorded and runs on every replay).

    On a CUDA tensor: one fused Triton kernel whose programs each assert their own row
    (``tl.device_assert``; no reduction, no second kernel). A failed device assert is fatal
    to the CUDA context, as every device assert is; the device prints the kernel's fixed
    message (``DEVICE_MESSAGE``) with the failing program (= request row), since a runtime
    string cannot reach a device assert (``torch._assert_async`` drops it on CUDA too).
    Elsewhere: torch ops and one ``torch._assert_async(verdict, message)``, which raises at
    once on the CPU."""
    import torch

    global _fused_failure
    if getattr(page_table, "is_cuda", False) and _fused_failure is None:
        try:
            state = _device_state(page_table)[0]
            _launch(page_table, seq_lens, page_size, num_pages, state, in_kernel_assert=True)
            return
        except Exception as err:  # no Triton, or it cannot build here: the guard's own
            # kernel must never take the server down; the torch path checks the same.
            _fused_failure = f"{type(err).__name__}: {err}"[:300]
            logger.warning("poolguard: fused bounds kernel unavailable, using torch ops: %s",
                           _fused_failure)
    torch._assert_async(_torch_verdict(page_table, seq_lens, page_size, num_pages), message)


def fused_check_status() -> str:
    """Which implementation ``assert_page_bounds_async`` uses on CUDA tensors, in words."""
    if _fused_failure is not None:
        return f"torch ops (the fused Triton kernel failed: {_fused_failure})"
    if _kernel is None:
        return "fused Triton kernel (not built yet)"
    if _launcher.failed is not None:
        return f"fused Triton kernel, launched by Triton ({_launcher.failed})"
    return (f"fused Triton kernel, launched directly by its compiled launcher "
            f"({len(_launcher.compiled)} compiled variant(s))")


def _torch_verdict(page_table: Any, seq_lens: Any, page_size: int, num_pages: int):
    """The verdict (a one-element tensor, true = in bounds) from torch ops, no host sync."""
    import torch

    rows, width = int(page_table.shape[0]), int(page_table.shape[1])
    batch = int(seq_lens.shape[0])
    if batch > rows:
        return torch.zeros((), dtype=torch.bool)
    if batch == 0:
        return torch.ones((), dtype=torch.bool)
    table = page_table[:batch]
    rows_fit = _pages_read(seq_lens, page_size, table.device).max() <= width
    if width == 0:
        return rows_fit
    low, high = _read_extremes(table, seq_lens, page_size)
    return rows_fit & (low >= 0) & (high < num_pages)


def launch_fused_check(
    page_table: Any, seq_lens: Any, page_size: int, num_pages: int, state: Any = None
):
    """Launch the fused check in its verdict form without waiting for it; return the verdict,
    a one-element int32 tensor on the table's device that reads 1 when in bounds, else 0
    (for callers that want a flag rather than an assert, and for tests).

    ``state`` (an int32 tensor of 3 zeros) defaults to a buffer cached per device: no
    allocation per call, the same address in every captured graph. The kernel leaves the
    buffer's first two elements zeroed for the next call. Launches on the current stream."""
    verdict = None
    if state is None:
        state, verdict = _device_state(page_table)
    _launch(page_table, seq_lens, page_size, num_pages, state, in_kernel_assert=False)
    return verdict if verdict is not None else state[_VERDICT:]


def _launch(table: Any, lens: Any, page_size: int, num_pages: int, state: Any,
            in_kernel_assert: bool) -> None:
    rows, width = table.shape
    batch = lens.shape[0]
    checked = min(rows, batch)
    row_stride, col_stride = table.stride()
    args = (table, lens, state, checked, width, row_stride, col_stride if width else 1,
            page_size, num_pages, int(batch > rows))
    block = min(1024, max(16, 1 << max(width - 1, 0).bit_length()))
    grid = max(checked, 1)
    # The key of the compiled variant: device, dtypes, constexprs, and whether Triton would
    # pass an int as i64 (a value past int32) rather than i32.
    key = (table.get_device(), table.dtype, lens.dtype, block, in_kernel_assert,
           max(row_stride, col_stride, width, num_pages) >= 2**31)
    if _launcher.direct(key, grid, args, block, in_kernel_assert):
        return
    kernel = fused_kernel()[(grid,)](*args, BLOCK=block, ASSERT=in_kernel_assert,
                                     MESSAGE=DEVICE_MESSAGE)
    _launcher.remember(key, kernel)


class _Launcher:
    """Launches the compiled fused kernel straight through its launcher.

    Triton's ``kernel[grid](...)`` binds the arguments, builds the specialisation key (hashing
    the device message, a constexpr, on every call) and looks the kernel up: about 13 µs of
    host time per launch on the H200 host above the launch itself. The kernel is built with no
    value or alignment specialisation of its runtime arguments, so one compiled kernel serves
    every table of a given key (``_launch``); it is remembered after Triton's own first launch
    of that key, and later launches call its launcher with the arguments Triton would pass.
    A profiler's launch hook, or a Triton whose launcher takes other arguments, sends every
    launch back to Triton's path. Public Triton API only: ``CompiledKernel.run`` /
    ``.function`` / ``.packed_metadata``, ``triton.knobs`` and ``triton.runtime.driver``,
    what ``kernel[grid]`` itself calls.
    """

    def __init__(self) -> None:
        self.compiled: dict = {}  # key -> (launcher, function, packed metadata)
        self.failed: Optional[str] = None
        self.stream = None  # triton.runtime.driver.active.get_current_stream
        self.knobs = None  # triton.knobs.runtime (its launch hooks)

    def remember(self, key: tuple, kernel: Any) -> None:
        if self.failed is not None or not all(
                hasattr(kernel, attr) for attr in ("run", "function", "packed_metadata")):
            return  # e.g. Triton's CPU interpreter: nothing compiled to reuse
        if self.stream is None:
            from triton import knobs
            from triton.runtime import driver

            self.stream, self.knobs = driver.active.get_current_stream, knobs.runtime
        self.compiled[key] = (kernel.run, kernel.function, kernel.packed_metadata)

    def direct(self, key: tuple, grid: int, args: tuple, block: int, in_kernel_assert) -> bool:
        found = self.compiled.get(key)
        if found is None or _hooked(self.knobs.launch_enter_hook) or _hooked(
                self.knobs.launch_exit_hook):
            return False
        run, function, metadata = found
        try:
            run(grid, 1, 1, self.stream(key[0]), function, metadata, None, None, None, *args,
                block, in_kernel_assert, DEVICE_MESSAGE)
        except TypeError as err:  # a Triton whose launcher takes other arguments
            self.failed = f"{type(err).__name__}: {err}"[:200]
            self.compiled.clear()
            return False
        return True


def _hooked(hook: Any) -> bool:
    """A launch hook is set: None, or (newer Triton) a hook chain with no calls, is not."""
    return hook is not None and getattr(hook, "calls", True) != []


_launcher = _Launcher()


def _device_state(table: Any):
    """The cached (state buffer, verdict view) for ``table``'s device, created on first use
    (keyed on the device index: building a ``torch.device`` costs more than the lookup)."""
    cached = _state.get(table.get_device())
    if cached is None:
        import torch

        buffer = torch.zeros(3, dtype=torch.int32, device=table.device)
        cached = _state[table.get_device()] = (buffer, buffer[_VERDICT:])
    return cached


def fused_kernel():
    """The Triton kernel, built once (imports Triton; only called for a CUDA table or a test
    under ``TRITON_INTERPRET=1``). Its arguments: see ``_launch``."""
    global _kernel
    if _kernel is None:
        _kernel = _build_kernel()
    return _kernel


DEVICE_MESSAGE = (
    "poolguard: a page table entry this launch reads is outside its KV buffer, a request "
    "needs more pages than its row holds, or there are more requests than rows (the failing "
    "program id is the request row; rerun eager without SGLANG_ENABLE_ASYNC_ASSERT for the "
    "SWAPoolMismatchError naming backend, layer and pool)"
)


def _build_kernel():
    import triton
    import triton.language as tl

    # debug: compile the device assert in. No specialisation of the runtime arguments on
    # their values or alignment: one compiled kernel for every table (see _Launcher).
    runtime_args = ["table", "lens", "state", "checked_rows", "width", "row_stride",
                    "col_stride", "page_size", "num_pages", "too_many_requests"]
    try:
        jit = triton.jit(debug=True, do_not_specialize=runtime_args,
                         do_not_specialize_on_alignment=runtime_args[:3])
    except TypeError:  # a Triton without per-argument alignment control: Triton's path only
        _launcher.failed = "this Triton cannot turn off alignment specialisation"
        jit = triton.jit(debug=True, do_not_specialize=runtime_args)

    @jit
    def page_bounds_kernel(
        table, lens, state, checked_rows, width, row_stride, col_stride, page_size,
        num_pages, too_many_requests, BLOCK: tl.constexpr, ASSERT: tl.constexpr,
        MESSAGE: tl.constexpr,
    ):
        # One program per request row: is every page it reads in 0..num_pages-1, and does
        # the row hold all of them? ASSERT: each program asserts its own row. Else the
        # programs publish into ``state`` and the last one to finish writes the verdict.
        row = tl.program_id(0)
        length = tl.load(lens + row, mask=row < checked_rows, other=0).to(tl.int64)
        needed = tl.maximum((length + page_size - 1) // page_size, 0)
        read = tl.minimum(needed, width)
        base = table + row.to(tl.int64) * row_stride
        worst = tl.zeros([BLOCK], dtype=tl.int32)
        for start in range(0, read, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            inside = cols < read
            page = tl.load(base + cols * col_stride, mask=inside, other=0)
            worst = tl.maximum(worst, (inside & ((page < 0) | (page >= num_pages))).to(tl.int32))
        bad = tl.max(worst, axis=0) | (needed > width).to(tl.int32)
        bad = tl.where((row == 0) & (too_many_requests != 0), 1, bad)
        if ASSERT:
            tl.device_assert(bad == 0, MESSAGE)
        else:
            tl.atomic_max(state, bad)
            finished = tl.atomic_add(state + 1, 1)
            if finished == tl.num_programs(0) - 1:  # the others have published (acq_rel)
                flag = tl.atomic_xchg(state, 0)
                tl.store(state + 1, 0)
                tl.store(state + 2, 1 - flag)

    return page_bounds_kernel
