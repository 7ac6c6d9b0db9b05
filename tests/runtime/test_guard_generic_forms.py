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

from runtime_guard import SWAPoolMismatchError  # noqa: E402

MISSED: dict = {}  # class name -> why the generic check does not refuse it
FALSE_ALARM: dict = {}  # (class name, config) -> why it refuses a correct class


def _params(forms, table):
    """One param per (class, configuration) of the set ``forms``, strict xfails per ``table``."""
    params = []
    for cls, config in gf.bb.cases(forms):
        reason = table.get(cls.__name__) or table.get((cls.__name__, config))
        marks = pytest.mark.xfail(reason=reason, strict=True) if reason else ()
        params.append(pytest.param(cls, config, marks=marks, id=f"{cls.__name__}-{config}"))
    return params


def stale_params(forms, missed):
    return [p for p in _params(forms, missed) if p.values[0] in forms.STALE]


def correct_params(forms, false_alarm):
    return [p for p in _params(forms, false_alarm) if p.values[0] in forms.CORRECT]


def assert_refused(forms, cls, config):
    """The stale class's launch raises, naming the class, the active pool and its state."""
    run = gf.scenario(cls, config)
    with pytest.raises(SWAPoolMismatchError) as caught:
        gf.launch(run)
    message = str(caught.value)
    assert message.startswith("poolguard (generic check, live): "), message
    reported = getattr(cls, "REPORTED_AS", cls.__name__)  # a wrapper's checked inner class
    assert f"{reported} (" in message and "SWAKVPool" in message, message
    assert re.search(rf"\b{re.escape(cls.STALE_STATE)}", message), message


def assert_launches(forms, cls, config):
    run = gf.scenario(cls, config)
    for layer_id in (0, 1) if config != gf.EAGLE else (0,):  # an EAGLE draft has one layer
        assert gf.launch(run, layer_id) is not None


def assert_material(forms, minimum):
    """Each set has ``minimum`` forms of each kind, documented, meant for known configurations;
    with the guard off every class builds and launches (the material itself works)."""
    assert len(forms.STALE) >= minimum and len(forms.CORRECT) >= minimum
    assert {c.EXPECT for c in forms.STALE} == {"stale"}
    assert {c.EXPECT for c in forms.CORRECT} == {"correct"}
    assert all(cls.__doc__ and set(cls.CONFIGS) <= set(gf.ALL)
               for cls in forms.STALE + forms.CORRECT)
    for cls, config in gf.bb.cases(forms):
        run = gf.scenario(cls, config)
        assert gf.launch(run).shape[0] == run.batch.batch_size, (cls, config)


@pytest.mark.parametrize("cls, config", stale_params(gf, MISSED))
def test_stale_form_is_refused_naming_its_state(cls, config, hooked):
    assert_refused(gf, cls, config)


@pytest.mark.parametrize("cls, config", correct_params(gf, FALSE_ALARM))
def test_correct_form_launches(cls, config, hooked):
    assert_launches(gf, cls, config)


def test_material_covers_the_brief():
    assert_material(gf, 8)
