"""Page-index bounds: what a launch reads is checked, padding is not, once per table per forward.

The KV buffers are real SGLang pool buffers: an SWAKVPool of 32 SWA tokens in pages of 4
holds 9 pages (one is SGLang's padding page), valid page ids 0..8. Out of bounds is also a
request needing more pages than its table row holds, and more requests than table rows.
The fused Triton kernel of the CUDA path runs here under Triton's CPU interpreter.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from runtime_guard import SWAPoolMismatchError, verify_page_bounds  # noqa: E402
from runtime_guard.bounds import assert_page_bounds_async  # noqa: E402

PAGE = 4


def _table(rows):
    width = max(len(r) for r in rows)
    return torch.tensor([r + [0] * (width - len(r)) for r in rows], dtype=torch.int32)


def _lens(values):
    return torch.tensor(values, dtype=torch.int32)


def test_one_index_past_the_buffer_is_caught():
    table = _table([[1, 2, 3], [4, 9]])  # row 1 reads page 9 of a 9-page buffer
    with pytest.raises(SWAPoolMismatchError) as caught:
        verify_page_bounds(table, _lens([12, 8]), PAGE, 9)
    message = str(caught.value)
    assert "row 1 column 1 holds page 9" in message and "valid 0..8" in message
    assert "pages read span 1..9" in message


def test_last_valid_page_passes():
    verify_page_bounds(_table([[1, 2, 8], [4, 8]]), _lens([12, 5]), PAGE, 9)


def test_negative_index_is_caught():
    with pytest.raises(SWAPoolMismatchError, match="holds page -1"):
        verify_page_bounds(_table([[1, -1]]), _lens([5]), PAGE, 9)


def test_empty_batches_do_not_alarm():
    verify_page_bounds(torch.zeros(0, 8, dtype=torch.int32), _lens([]), PAGE, 9)
    verify_page_bounds(torch.full((4, 8), 99, dtype=torch.int32), _lens([]), PAGE, 9)
    verify_page_bounds(torch.full((2, 8), 99, dtype=torch.int32), _lens([0, 0]), PAGE, 9)


def test_padding_is_never_read():
    table = torch.full((4, 6), 1000, dtype=torch.int32)  # garbage everywhere...
    table[0, :2] = torch.tensor([3, 4])  # ...except what row 0 reads (7 tokens = 2 pages)
    table[1, :1] = 8  # and row 1 (exactly one page)
    verify_page_bounds(table, _lens([7, 4]), PAGE, 9)  # rows 2, 3: past the batch
    with pytest.raises(SWAPoolMismatchError, match="row 1 column 1"):
        verify_page_bounds(table, _lens([7, 5]), PAGE, 9)  # one token more reads column 1


def test_a_row_too_short_for_its_seq_len_is_caught():
    table = _table([[1, 2, 3], [4, 5, 6]])  # rows hold 3 pages of 4 tokens: 12 tokens
    verify_page_bounds(table, _lens([12, 9]), PAGE, 9)
    with pytest.raises(SWAPoolMismatchError) as caught:
        verify_page_bounds(table, _lens([12, 13]), PAGE, 9)
    message = str(caught.value)
    assert "request 1 has seq_len 13, which needs 4 pages of 4 tokens" in message
    assert "its page table row holds 3" in message


def test_more_requests_than_table_rows_is_caught():
    table = _table([[1, 2], [3, 4]])
    with pytest.raises(SWAPoolMismatchError, match="3 requests .* the page table has 2 rows"):
        verify_page_bounds(table, _lens([8, 8, 1]), PAGE, 9)
    with pytest.raises(SWAPoolMismatchError, match="1 requests .* has 0 rows"):
        verify_page_bounds(torch.zeros(0, 2, dtype=torch.int32), _lens([0]), PAGE, 9)


def test_a_zero_width_table_only_fits_empty_requests():
    empty_rows = torch.zeros(2, 0, dtype=torch.int32)
    verify_page_bounds(empty_rows, _lens([0, 0]), PAGE, 9)
    with pytest.raises(SWAPoolMismatchError, match="needs 1 pages"):
        verify_page_bounds(empty_rows, _lens([0, 1]), PAGE, 9)


def test_device_assert_variant_catches_the_shape_conditions():
    for table, lens in (
        (_table([[1, 2, 3]]), _lens([13])),  # row too short
        (_table([[1, 2, 3]]), _lens([4, 4])),  # more requests than rows
    ):
        with pytest.raises(RuntimeError, match="poolguard: shape"):
            assert_page_bounds_async(table, lens, PAGE, 9, "poolguard: shape")


def test_device_assert_variant_agrees():
    # On the CPU torch._assert_async fails at once; on a GPU it fails inside the graph.
    assert_page_bounds_async(_table([[1, 8]]), _lens([8]), PAGE, 9, "poolguard: test")
    with pytest.raises(RuntimeError, match="poolguard: test"):
        assert_page_bounds_async(_table([[1, 9]]), _lens([8]), PAGE, 9, "poolguard: test")


@pytest.fixture
def swa_backend():
    if importlib.util.find_spec("sglang") is None:
        pytest.skip("SGLang is not installed")
    from runtime_guard.demo import scenarios as sc

    target = sc.swa_pool()
    fixed = sc.fixed_backend_module().FixedTRTLLMHAAttnBackend
    backend = sc.construct_backend(fixed, sc.runner(target, sc.swa_allocator(target)))
    return sc, target, backend


def _launch_all_layers(sc, hooks, backend, batch):
    launched = []
    for layer_id in range(4):
        q = torch.zeros(2, 16, dtype=sc.DTYPE)
        hooks.guard_launch(
            lambda *a, **k: launched.append(a[4].layer_id), backend, q, None, None,
            sc.layer(layer_id), batch,
        )
    return launched


def test_hook_catches_a_swa_page_past_the_swa_buffer(guard, swa_backend):
    sc, target, backend = swa_backend
    hooks = guard("bounds")
    seq = [8, 5]
    swa_table = _table([[0, 8], [7, 9]])  # SWA buffer: 9 pages; page 9 is one past it
    sc.metadata(backend, seq, sc.contiguous_page_table(seq, 2), swa_table)
    batch = sc.decode_batch(target, seq)
    with pytest.raises(SWAPoolMismatchError, match=r"layer 0 \(SWA\).*holds page 9"):
        _launch_all_layers(sc, hooks, backend, batch)
    swa_table[1, 1] = 8
    hooks.guard_metadata(lambda *a, **k: None, backend, batch)  # next forward
    assert _launch_all_layers(sc, hooks, backend, batch) == [0, 1, 2, 3]


def test_each_page_table_is_checked_once_per_forward(guard, swa_backend, monkeypatch):
    sc, target, backend = swa_backend
    hooks = guard("bounds")
    from runtime_guard import bounds

    calls = []
    real = bounds.find_bounds_problem
    monkeypatch.setattr(bounds, "find_bounds_problem", lambda *a: calls.append(a[0]) or real(*a))
    seq = [8, 5]
    sc.metadata(backend, seq, sc.contiguous_page_table(seq, 2), _table([[0, 1], [2, 3]]))
    batch = sc.decode_batch(target, seq)
    for _ in range(3):  # three "forwards" of four layers: SWA layers share one table
        hooks.guard_metadata(lambda *a, **k: None, backend, batch)
        _launch_all_layers(sc, hooks, backend, batch)
    meta = backend.forward_metadata
    assert len(calls) == 6
    assert [id(t) for t in calls[:2]] == [id(meta.swa_page_table), id(meta.page_table)]


def test_check_mode_does_no_bounds_work(guard, swa_backend, monkeypatch):
    sc, target, backend = swa_backend
    hooks = guard("check")
    from runtime_guard import bounds

    monkeypatch.setattr(bounds, "find_bounds_problem", lambda *a: pytest.fail("bounds ran"))
    seq = [8]
    sc.metadata(backend, seq, _table([[999, 999]]), _table([[999, 999]]))
    assert _launch_all_layers(sc, hooks, backend, sc.decode_batch(target, seq)) == [0, 1, 2, 3]


def test_bounds_hooks_work_on_inference_mode_tensors(guard, swa_backend):
    """SGLang's scheduler runs forwards under torch.inference_mode."""
    sc, target, backend = swa_backend
    hooks = guard("bounds")
    seq = [8, 5]
    with torch.inference_mode():
        sc.metadata(backend, seq, sc.contiguous_page_table(seq, 2), _table([[0, 8], [7, 9]]))
        batch = sc.decode_batch(target, seq)
        hooks.guard_metadata(lambda *a, **k: None, backend, batch)
        with pytest.raises(SWAPoolMismatchError, match="holds page 9"):
            _launch_all_layers(sc, hooks, backend, batch)


# Cases for the fused kernel: (table rows, seq_lens, num_pages). Every bounds condition,
# padding that must be ignored, a strided table and columns beyond one kernel block.
_FUSED_CASES = """
[[[1, 2, 3], [4, 9, 1000]], [12, 8], 9]
[[[1, 2, 3], [4, 9, 1000]], [12, 4], 9]
[[[1, 2, 3], [4, 8, 1000]], [13, 4], 9]
[[[1, 2, 3], [4, 8, 1000]], [12, 4, 1], 9]
[[[1, -1, 3]], [12], 9]
[[[1, 2]], [], 9]
[[[7, 7], [1000, 1000]], [0, -3], 9]
"""

_FUSED_SCRIPT = """
import json, sys, torch
from runtime_guard import bounds
for line in sys.stdin.read().split("\\n"):
    if not line.strip():
        continue
    rows, lens, pages = json.loads(line)
    table = torch.tensor(rows, dtype=torch.int32)
    seq = torch.tensor(lens, dtype=torch.int32)
    state = torch.zeros(3, dtype=torch.int32)
    verdict = int(bounds.launch_fused_check(table, seq, 4, pages, state)[0])
    host = bounds.find_bounds_problem(table, seq, 4, pages) is None
    wide = torch.full((3, 1500), 5, dtype=torch.int32).t().contiguous().t()  # strided
    wide[2, 1499] = pages
    wide_lens = torch.tensor([6000, 4, 5996 + (verdict % 2)], dtype=torch.int64)
    wide_verdict = int(bounds.launch_fused_check(wide, wide_lens, 4, pages, state)[0])
    wide_host = bounds.find_bounds_problem(wide, wide_lens, 4, pages) is None
    print(verdict, int(host), wide_verdict, int(wide_host), state[:2].tolist())
"""


def test_fused_triton_kernel_agrees_with_the_host_check():
    """The CUDA path's kernel, run by Triton's interpreter on the CPU in a child process
    (TRITON_INTERPRET must be set before Triton is imported)."""
    if importlib.util.find_spec("triton") is None:
        pytest.skip("Triton is not installed")
    env = dict(os.environ, TRITON_INTERPRET="1")
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_FUSED_SCRIPT)], input=_FUSED_CASES,
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.split("\n")[:-1]
    assert [line.split()[:2] for line in lines] == [
        ["0", "0"], ["1", "1"], ["0", "0"], ["0", "0"], ["0", "0"], ["1", "1"], ["1", "1"],
    ]
    for line in lines:
        verdict, host, wide_verdict, wide_host = line.split()[:4]
        assert verdict == host and wide_verdict == wide_host
        assert line.endswith("[0, 0]")  # the kernel leaves its state ready for the next call
    assert {line.split()[2] for line in lines} == {"0", "1"}


def test_hook_catches_a_seq_len_longer_than_its_table_row(guard, swa_backend):
    sc, target, backend = swa_backend
    hooks = guard("bounds")
    seq = [8, 13]  # 13 tokens need 4 pages; the tables are 3 pages wide
    sc.metadata(backend, seq, _table([[1, 2, 0], [3, 4, 5]]), _table([[0, 1, 0], [2, 3, 4]]))
    batch = sc.decode_batch(target, seq)
    with pytest.raises(SWAPoolMismatchError, match="request 1 has seq_len 13, which needs 4"):
        _launch_all_layers(sc, hooks, backend, batch)


def test_a_new_table_for_the_same_pool_is_checked_within_one_forward(guard, swa_backend):
    """The per-forward cache is keyed on the table: a second table over the same pool (a
    rebuilt page table, a draft step's own) is checked even if the first one passed."""
    sc, target, backend = swa_backend
    hooks = guard("bounds")
    seq = [8, 5]
    sc.metadata(backend, seq, sc.contiguous_page_table(seq, 2), _table([[0, 1], [2, 3]]))
    batch = sc.decode_batch(target, seq)
    hooks.guard_metadata(lambda *a, **k: None, backend, batch)
    assert _launch_all_layers(sc, hooks, backend, batch) == [0, 1, 2, 3]
    full_pages = target.get_kv_buffer(1)[0].shape[0] // sc.PAGE
    backend.forward_metadata.page_table = _table([[1, 2], [full_pages, 0]])  # same forward
    with pytest.raises(SWAPoolMismatchError, match=rf"layer 1 \(full\).*holds page {full_pages}"):
        _launch_all_layers(sc, hooks, backend, batch)


def test_per_step_backends_are_rechecked_at_every_new_forward(guard, swa_backend):
    """A multi-step draft's metadata hook starts a new forward for each per-step backend: a
    table changed in place since the last forward (CUDA-graph buffers are) is checked again."""
    sc, target, step = swa_backend
    hooks = guard("bounds")
    multi_cls = sc.sglang().trtllm_mha_backend.TRTLLMHAAttnMultiStepDraftBackend
    multi = multi_cls.__new__(multi_cls)
    multi.attn_backends = [step]
    seq = [8, 5]
    swa_table = _table([[0, 1], [2, 3]])
    sc.metadata(step, seq, sc.contiguous_page_table(seq, 2), swa_table)
    batch = sc.decode_batch(target, seq)
    hooks.guard_metadata(lambda *a, **k: None, multi, batch)
    assert _launch_all_layers(sc, hooks, step, batch) == [0, 1, 2, 3]
    swa_table[1, 1] = 9  # in place: one page past the SWA buffer's 9
    hooks.guard_metadata(lambda *a, **k: None, multi, batch)  # the next forward
    with pytest.raises(SWAPoolMismatchError, match=r"layer 0 \(SWA\).*holds page 9"):
        _launch_all_layers(sc, hooks, step, batch)


@pytest.mark.parametrize("table, lens, page_size, num_pages, error, says", [
    ("ok", "ok", 0, 10, ValueError, "page_size must be a positive integer, got 0"),  # was
    ("ok", "ok", -1, 10, ValueError, "page_size must be a positive"),  # ZeroDivisionError / none
    ("ok", "ok", 1.5, 10, ValueError, "page_size must be a positive integer, got 1.5"),
    ("ok", "ok", True, 10, ValueError, "page_size must be a positive integer, got True"),
    ("ok", "ok", 1, -1, ValueError, "num_pages must be a non-negative integer, got -1"),
    ([[0, 1]], [2], 1, 10, TypeError, "page_table must be a 2-D integer tensor, got list"),
    ("1d", "ok", 1, 10, TypeError, "page_table must be a 2-D integer tensor, got Tensor of shape"),
    ("float", "ok", 1, 10, TypeError, "page_table must be a 2-D integer tensor"),
    ("ok", [3, 3], 1, 10, TypeError, "seq_lens must be a 1-D integer tensor, got list"),
])
def test_verify_page_bounds_names_a_bad_argument(table, lens, page_size, num_pages, error, says):
    # attack3: the public API said "RuntimeError ZeroDivisionError" for page_size=0, passed a
    # negative page_size or a float table, and raised AttributeError/IndexError on lists/1-D
    tables = {"ok": torch.zeros(2, 4, dtype=torch.int32), "1d": torch.zeros(4, dtype=torch.int32),
              "float": torch.zeros(2, 4)}
    table = tables.get(table, table) if isinstance(table, str) else table
    lens = torch.tensor([3, 3]) if lens == "ok" else lens
    with pytest.raises(error, match=f"^verify_page_bounds: {re.escape(says)}"):
        verify_page_bounds(table, lens, page_size, num_pages)
    verify_page_bounds(torch.zeros(2, 4, dtype=torch.int32), torch.tensor([3, 3]),
                       torch.tensor(64), 10)  # a 0-d integer tensor is an integer
