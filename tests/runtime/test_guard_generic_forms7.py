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
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    here = str(Path(__file__).parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    env["SGLANG_POOLGUARD"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", OVERRIDE_CHILD.format(here=here)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["wrapped"] == [True, True] and seen["pending"] == 1
    assert seen["error"].startswith("SWAPoolMismatchError: poolguard (generic check, live): "
                                    "ForwardOverrideAttnBackend"), seen["error"]
    assert seen["launched"] == 2
