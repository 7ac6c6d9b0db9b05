"""Page-index bounds: what a launch reads is checked, padding is not, once per table per forward.

The KV buffers are real SGLang pool buffers: an SWAKVPool of 32 SWA tokens in pages of 4
holds 9 pages (one is SGLang's padding page), valid page ids 0..8.
"""

from __future__ import annotations

import importlib.util

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
