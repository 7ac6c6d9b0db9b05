"""The generic guard on ``guard_forms3``, the third set of backends no table names (stale state
in helpers' properties, partials, descriptors, ``__slots__``, frozen records, class factories,
inner backends in records, builders' bound methods, CUDA-graph buffers, per-layer lists, mixins,
``lru_cache``): each stale class is refused at its launch naming its state, each correct one
launches, with the helpers of ``test_guard_generic_forms``. What the check still misses or
wrongly refuses is listed as strict xfails with the reason."""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import guard_forms3 as forms  # noqa: E402
from test_guard_generic_forms import (  # noqa: E402
    assert_launches,
    assert_material,
    assert_refused,
    correct_params,
    stale_params,
)

MISSED: dict = {}  # class name -> why the generic check does not refuse it
FALSE_ALARM: dict = {}  # (class name, config) -> why it refuses a correct class


@pytest.mark.parametrize("cls, config", stale_params(forms, MISSED))
def test_stale_form_is_refused_naming_its_state(cls, config, hooked):
    assert_refused(forms, cls, config)


@pytest.mark.parametrize("cls, config", correct_params(forms, FALSE_ALARM))
def test_correct_form_launches(cls, config, hooked):
    assert_launches(forms, cls, config)


def test_material_covers_the_brief():
    assert_material(forms, 10)


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
