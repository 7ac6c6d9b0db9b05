"""``guard_forms_indexed``'s getters (its classes run in ``test_guard_generic_form_sets``): which
getters the generic check may call per launch (a computed lookup and nothing else), and a
getter with a side effect is never called by it."""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import guard_forms_indexed as forms  # noqa: E402

from runtime_guard.provenance import computed_lookup  # noqa: E402

_REG: dict = {}
_SEEN: list = []


def _key(backend):
    return (type(backend).__name__, id(backend))


class _Getters:
    def tuple_key(self):
        key = (id(self), "kv")
        return _REG[key]

    def chained(self):
        return _REG.get(id(self), {}).get("kv")

    def through_helper(self):
        return _REG.get(_key(self))

    def counts(self):
        _SEEN.append(self)
        return _REG.get(id(self))

    def stores(self):
        self.cached = _REG.get(id(self))
        return self.cached

    def loops(self):
        for key in _REG:
            return _REG[key]

    def calls_anything(self):
        return print(_REG[id(self)])

    def reads_live_pool(self):
        return self.token_to_kv_pool.full_to_swa_index_mapping[0]

    def computes_no_lookup(self):
        return id(self) + 1


@pytest.mark.parametrize("name, expected", [
    ("tuple_key", True), ("chained", True), ("through_helper", True), ("counts", False),
    ("stores", False), ("loops", False), ("calls_anything", False), ("reads_live_pool", False),
    ("computes_no_lookup", False),
])
def test_only_a_side_effect_free_computed_lookup_is_called_by_the_guard(name, expected):
    assert computed_lookup(getattr(_Getters, name)) is expected


def test_a_getter_with_a_side_effect_is_never_called(hooked):
    for config in forms.CountingGetterAttnBackend.CONFIGS:
        run = forms.scenario(forms.CountingGetterAttnBackend, config)
        before = forms.GETTER_CALLS.count
        layers = (0,) if config == forms.EAGLE else (0, 1)  # an EAGLE draft has one layer
        for layer_id in layers:
            forms.launch(run, layer_id)
        assert forms.GETTER_CALLS.count - before == len(layers), config  # its own reads
