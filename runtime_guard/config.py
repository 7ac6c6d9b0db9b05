"""Read the guard's switches from the environment (design §1): mode, action and fixed backend."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from runtime_guard.errors import PoolGuardConfigError

MODE_VAR = "SGLANG_POOLGUARD"
ACTION_VAR = "SGLANG_POOLGUARD_ACTION"
FIX_VAR = "SGLANG_POOLGUARD_FIX"

# Accepted spellings, in the order the error message lists them; "" stands for unset.
_MODES = {"": "off", "0": "off", "off": "off", "1": "check", "check": "check", "bounds": "bounds"}
_ACTIONS = {"": "raise", "raise": "raise", "log": "log"}
_FIX = {"": False, "0": False, "off": False, "1": True, "on": True}


@dataclass(frozen=True)
class GuardConfig:
    """The guard's configuration: ``mode`` off/check/bounds, ``action`` raise/log, ``fix``."""

    mode: str = "off"
    action: str = "raise"
    fix: bool = False

    @property
    def guarding(self) -> bool:
        return self.mode != "off"

    @property
    def bounds(self) -> bool:
        return self.mode == "bounds"


def _pick(environ: Mapping[str, str], name: str, table: dict):
    raw = environ.get(name, "")
    key = raw.strip().lower()
    if key in table:
        return table[key]
    accepted = ", ".join(["unset"] + [k for k in table if k])
    raise PoolGuardConfigError(f"{name}={raw!r} is not valid; accepted values: {accepted}")


def read_config(environ: Mapping[str, str] | None = None) -> GuardConfig:
    """Parse the three variables; raise ``PoolGuardConfigError`` naming the accepted values."""
    env = os.environ if environ is None else environ
    return GuardConfig(
        mode=_pick(env, MODE_VAR, _MODES),
        action=_pick(env, ACTION_VAR, _ACTIONS),
        fix=_pick(env, FIX_VAR, _FIX),
    )
