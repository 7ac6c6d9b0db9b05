"""The generic guard on ``guard_forms``, the second set of backends no table names (written by
guard2 beyond ``blind_backends``): each stale class is refused at its launch, naming the stale
state, in every configuration it is meant for; each correct one launches. With the guard off
every class builds and launches on the real pools (the material itself works). What the check
still misses or wrongly refuses is listed below as strict xfails with the reason."""

from __future__ import annotations

import importlib.util
import re

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import guard_forms as gf  # noqa: E402

from runtime_guard import SWAPoolMismatchError, generic  # noqa: E402

MISSED = {  # class name -> why the generic check does not refuse it
    "ImportedVerdictAttnBackend": "the pool test is made by a helper of another module and the "
    "flag's name says nothing of SWA: the lint's per-module analysis does not follow the import",
    "ConvertedMappingAttnBackend": "an int32 copy of another pool's mapping has no twin (shape, "
    "dtype) among the active pool's tensors: without the construction-time pool it cannot be "
    "told from a table the backend derived itself",
}
FALSE_ALARM: dict = {}  # (class name, config) -> why it refuses a correct class


def _params(classes, table):
    params = []
    for cls, config in gf.cases():
        if cls in classes:
            reason = table.get(cls.__name__) or table.get((cls.__name__, config))
            marks = pytest.mark.xfail(reason=reason, strict=True) if reason else ()
            params.append(pytest.param(cls, config, marks=marks, id=f"{cls.__name__}-{config}"))
    return params


@pytest.fixture
def hooked(monkeypatch, guard):
    guard("check")
    original = gf.bb.AttentionBackend.forward

    def forward(*args, **kwargs):
        return generic.guard_dispatch(original, *args, **kwargs)

    monkeypatch.setattr(gf.bb.AttentionBackend, "forward", forward)


@pytest.mark.parametrize("cls, config", _params(gf.STALE, MISSED))
def test_stale_form_is_refused_naming_its_state(cls, config, hooked):
    run = gf.scenario(cls, config)
    with pytest.raises(SWAPoolMismatchError) as caught:
        gf.launch(run)
    message = str(caught.value)
    assert message.startswith("poolguard (generic check, live): "), message
    assert f"{cls.__name__} (" in message and "SWAKVPool" in message, message
    assert re.search(rf"\b{re.escape(cls.STALE_STATE)}", message), message


@pytest.mark.parametrize("cls, config", _params(gf.CORRECT, FALSE_ALARM))
def test_correct_form_launches(cls, config, hooked):
    run = gf.scenario(cls, config)
    for layer_id in (0, 1) if config != gf.EAGLE else (0,):  # an EAGLE draft has one layer
        assert gf.launch(run, layer_id) is not None


@pytest.mark.parametrize("cls, config", [(c, k) for c, k in gf.cases()],
                         ids=[f"{c.__name__}-{k}" for c, k in gf.cases()])
def test_material_launches_unguarded(cls, config):
    run = gf.scenario(cls, config)
    assert gf.launch(run).shape[0] == run.batch.batch_size


def test_material_covers_the_brief():
    assert len(gf.STALE) >= 8 and len(gf.CORRECT) >= 8
    assert {c.EXPECT for c in gf.STALE} == {"stale"} and {c.EXPECT for c in gf.CORRECT} == {
        "correct"}
    assert all(cls.__doc__ and set(cls.CONFIGS) <= set(gf.ALL) for cls in gf.STALE + gf.CORRECT)
