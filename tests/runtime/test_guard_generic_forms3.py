"""``guard_forms3``'s provenance reads (its stale and correct classes are run by
``test_guard_generic_form_sets``): each module is parsed once per process."""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import guard_forms3 as forms  # noqa: E402


def test_each_module_is_parsed_once_per_process(monkeypatch):
    """Classes of one module (and their bases there) cost one read of its source; a verdict
    made by a helper of another module (``blind_backends._swa_or_none``) is followed."""
    import inspect
    import types

    from runtime_guard import provenance

    for cache in ("_by_class", "_modules", "_wide", "_helpers", "_shared"):
        monkeypatch.setattr(provenance, cache, {})
    read = []
    source = inspect.getsource

    def counted(obj):
        if isinstance(obj, types.ModuleType):
            read.append(obj.__name__)
        return source(obj)

    monkeypatch.setattr(provenance.inspect, "getsource", counted)
    for cls in forms.STALE + forms.CORRECT:
        provenance.proven(cls, forms.bb.AttentionBackend)
    verdict = provenance.proven(forms.gf.ImportedVerdictAttnBackend, forms.bb.AttentionBackend)
    assert "paged" in verdict.flags
    assert "split_pages" in provenance.proven(forms.MixinVerdictAttnBackend,
                                              forms.bb.AttentionBackend).flags
    assert sorted(read) == sorted(set(read)) and "guard_forms3" in read, read
