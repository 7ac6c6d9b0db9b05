"""The package imports without torch or SGLang, and reads its switches strictly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from runtime_guard import PoolGuardConfigError, SWAPoolMismatchError
from runtime_guard.config import GuardConfig, read_config


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
    ],
)
def test_accepted_values(env, expected):
    assert read_config(env) == expected


@pytest.mark.parametrize(
    "name, value, accepted",
    [
        ("SGLANG_POOLGUARD", "yes please", "unset, 0, off, 1, check, bounds"),
        ("SGLANG_POOLGUARD_ACTION", "warn", "unset, raise, log"),
        ("SGLANG_POOLGUARD_FIX", "true", "unset, 0, off, 1, on"),
    ],
)
def test_bad_value_names_the_accepted_ones(name, value, accepted):
    with pytest.raises(PoolGuardConfigError) as caught:
        read_config({name: value})
    message = str(caught.value)
    assert message == f"{name}={value!r} is not valid; accepted values: {accepted}"
