"""``guard_forms7``'s ``forward`` override through SGLang's real plugin loader (its stale and
correct classes are run by ``test_guard_generic_form_sets``, where its honest first measure is
recorded)."""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

OVERRIDE_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import guard_forms as gf
import guard_forms7 as forms
from runtime_guard import generic
from runtime_guard.demo import scenarios as sc
sg = sc.sglang()
sg.load_plugins()
sg.load_plugins()  # a second load registers nothing twice
stale, live = forms.ForwardOverrideAttnBackend, forms.ForwardOverrideLiveAttnBackend
target = f"{{stale.__module__}}.{{stale.__qualname__}}.forward"
run = gf.scenario(stale, gf.FROZEN_KV)
try:
    gf.launch(run)
    error = None
except Exception as err:
    error = f"{{type(err).__name__}}: {{err}}"
launched = gf.launch(gf.scenario(live, gf.FROZEN_KV)).shape[0]
print(json.dumps(dict(wrapped=[generic.wraps_dispatch(vars(c)["forward"]) for c in (stale, live)],
                      pending=len(sg.HookRegistry._hooks.get(target, ())), error=error,
                      launched=launched)))
"""


def test_the_real_plugin_loader_hooks_a_forward_that_bypasses_the_base_dispatch():
    """Through SGLang's own loader: the override is hooked once, the stale class is refused at
    its own ``forward``, the correct one launches."""
    from installed_sglang import HERE, child_answer

    seen = child_answer(OVERRIDE_CHILD.format(here=HERE), SGLANG_POOLGUARD="1")
    assert seen["wrapped"] == [True, True] and seen["pending"] == 1
    assert seen["error"].startswith("SWAPoolMismatchError: poolguard (generic check, live): "
                                    "ForwardOverrideAttnBackend"), seen["error"]
    assert seen["launched"] == 2
