"""The package imports without torch or SGLang, and reads its switches strictly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from runtime_guard import PoolGuardConfigError, SWAPoolMismatchError
from runtime_guard.config import PLUGIN_NAME, GuardConfig, plugin_allowed, read_config


def test_import_needs_neither_torch_nor_sglang():
    # A None entry in sys.modules makes any import of that name fail.
    script = (
        "import sys\n"
        "sys.modules['torch'] = None\n"
        "sys.modules['sglang'] = None\n"
        "import runtime_guard\n"
        "from runtime_guard import plugin, checks, config\n"
        "print(sorted(runtime_guard.__all__))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "SWAPoolMismatchError" in done.stdout and "verify_page_bounds" in done.stdout


def test_error_types():
    assert issubclass(SWAPoolMismatchError, RuntimeError)
    assert issubclass(PoolGuardConfigError, ValueError)


@pytest.mark.parametrize(
    "env, expected",
    [
        ({}, GuardConfig("off", "raise", False)),
        ({"SGLANG_POOLGUARD": "0"}, GuardConfig("off", "raise", False)),
        ({"SGLANG_POOLGUARD": "off"}, GuardConfig("off", "raise", False)),
        ({"SGLANG_POOLGUARD": "1"}, GuardConfig("check", "raise", False)),
        ({"SGLANG_POOLGUARD": " Check "}, GuardConfig("check", "raise", False)),
        ({"SGLANG_POOLGUARD": "bounds", "SGLANG_POOLGUARD_ACTION": "log"},
         GuardConfig("bounds", "log", False)),
        ({"SGLANG_POOLGUARD_FIX": "1"}, GuardConfig("off", "raise", True)),
        ({"SGLANG_POOLGUARD": "On", "SGLANG_POOLGUARD_FIX": " TRUE"},
         GuardConfig("check", "raise", True)),
        ({"SGLANG_POOLGUARD": "false", "SGLANG_POOLGUARD_FIX": "off"},
         GuardConfig("off", "raise", False)),
    ],
)
def test_accepted_values(env, expected):
    assert read_config(env) == expected


@pytest.mark.parametrize(
    "name, value, accepted",
    [
        ("SGLANG_POOLGUARD", "yes please",
         "unset, 0, off, false, no, 1, on, true, yes, check, bounds"),
        ("SGLANG_POOLGUARD_ACTION", "warn", "unset, raise, log"),
        ("SGLANG_POOLGUARD_FIX", "bounds", "unset, 0, off, false, no, 1, on, true, yes"),
    ],
)
def test_bad_value_names_the_accepted_ones(name, value, accepted):
    with pytest.raises(PoolGuardConfigError) as caught:
        read_config({name: value})
    message = str(caught.value)
    assert message == f"{name}={value!r} is not valid; accepted values: {accepted}"


@pytest.mark.parametrize("spelling",
                         ["1", "on", "true", "yes", "0", "off", "false", "no", "", " On "])
def test_every_on_off_spelling_means_the_same_for_both_switches(spelling):
    config = read_config({"SGLANG_POOLGUARD": spelling, "SGLANG_POOLGUARD_FIX": spelling})
    assert config.guarding is config.fix  # one reading of on/off, not one per variable


@pytest.mark.parametrize(
    "plugins, allowed",
    [("", True), ("poolguard", True), ("other, poolguard ", True), ("other", False),
     ("poolguard_extra,other", False), (",", False), ("  ", False)],
)
def test_plugin_allowed_reads_sglang_plugins_as_sglang_does(plugins, allowed):
    assert plugin_allowed({"SGLANG_PLUGINS": plugins}) is allowed
    assert plugin_allowed({}) is True


def test_plugin_name_is_the_installed_entry_point():
    from importlib.metadata import entry_points

    names = [ep.name for ep in entry_points(group="sglang.srt.plugins")
             if ep.value.startswith("runtime_guard.")]
    assert names == [PLUGIN_NAME]


def test_describe_says_mode_action_and_fix():
    assert GuardConfig("check", "raise", True).describe() == "guard check (raise), fix on"
    assert GuardConfig(fix=True).describe() == "guard off, fix on"
