"""The runtime guard's environment switches, each parsed in exactly one place (design §1).

The plugin, ``poolguard guard-status`` and the demo read them only through ``read_config``, so a
value means the same everywhere: ``1``/``on``/``true``/``yes`` and ``0``/``off``/``false``/``no``
(SGLang's own boolean spellings, plus on/off) are accepted by every on/off switch, and a value
outside the accepted ones is a ``PoolGuardConfigError`` naming them. ``plugin_allowed`` answers
whether SGLang's own plugin allow-list (``SGLANG_PLUGINS``) lets SGLang call the plugin at all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from runtime_guard.errors import PoolGuardConfigError

MODE_VAR = "SGLANG_POOLGUARD"
ACTION_VAR = "SGLANG_POOLGUARD_ACTION"
FIX_VAR = "SGLANG_POOLGUARD_FIX"
PLUGINS_VAR = "SGLANG_PLUGINS"  # SGLang's allow-list of general plugins, comma-separated
PLUGIN_NAME = "poolguard"  # our entry point's name in the group sglang.srt.plugins (setup.cfg)
# SGLang's own invariant-check level: what a latent inconsistency does. SGLang reads it as an
# int (InvariantCheckLevel: 0 off, 1 warn, 2 strict); the names are accepted too.
LATENT_VAR = "SGLANG_INVARIANT_CHECK"
# SGLang's switch for its async device asserts; with it, ``bounds`` uses a device assert too.
ASYNC_ASSERT_VAR = "SGLANG_ENABLE_ASYNC_ASSERT"
# SGLang's EnvBool spellings (lower-cased, never stripped): anything else SGLang warns about.
SGLANG_BOOL = {**dict.fromkeys(("true", "1", "yes", "y"), True),
               **dict.fromkeys(("false", "0", "no", "n"), False)}

# Accepted spellings, in the order the error message lists them; "" stands for unset.
_OFF, _ON = ("0", "off", "false", "no"), ("1", "on", "true", "yes")
_MODES = {"": "off", **dict.fromkeys(_OFF, "off"), **dict.fromkeys(_ON, "check"),
          "check": "check", "bounds": "bounds"}
_ACTIONS = {"": "raise", "raise": "raise", "log": "log"}
_FIX = {"": False, **dict.fromkeys(_OFF, False), **dict.fromkeys(_ON, True)}
_LATENT = {"": "warn", "0": "off", "1": "warn", "2": "strict",  # unset: warn
           "off": "off", "warn": "warn", "strict": "strict"}


@dataclass(frozen=True)
class GuardConfig:
    """The guard's configuration: ``mode`` off/check/bounds, ``action`` raise/log, ``fix``."""

    mode: str = "off"
    action: str = "raise"
    fix: bool = False
    latent: str = "warn"  # a latent inconsistency: off (silent), warn (log once), strict (raise)

    @property
    def guarding(self) -> bool:
        return self.mode != "off"

    @property
    def bounds(self) -> bool:
        return self.mode == "bounds"

    def describe(self) -> str:
        """One phrase for log lines and ``guard-status``: ``guard check (raise), fix on``."""
        guard = f"guard {self.mode}" + (f" ({self.action})" if self.guarding else "")
        return f"{guard}, fix {'on' if self.fix else 'off'}"


def _pick(environ: Mapping[str, str], name: str, table: dict):
    raw = environ.get(name, "")
    key = raw.strip().lower()
    if key in table:
        return table[key]
    accepted = ", ".join(["unset"] + [k for k in table if k])
    raise PoolGuardConfigError(f"{name}={_quoted(raw)} is not valid; accepted values: {accepted}")


def _quoted(raw: str) -> str:
    """A refused value as Python quotes it, cut short: a line that names a 100,000-character
    value is no longer a line a person (or a server log) reads."""
    return repr(raw) if len(raw) <= 60 else f"{raw[:40]!r}... ({len(raw)} characters)"


def read_config(environ: Mapping[str, str] | None = None) -> GuardConfig:
    """Parse the variables; raise ``PoolGuardConfigError`` naming the accepted values.
    SGLang's own ``SGLANG_INVARIANT_CHECK`` is read only when the guard is on: with it off,
    nothing of poolguard may stop a server over a variable that belongs to SGLang."""
    env = os.environ if environ is None else environ
    mode = _pick(env, MODE_VAR, _MODES)
    config = GuardConfig(
        mode=mode,
        action=_pick(env, ACTION_VAR, _ACTIONS),
        fix=_pick(env, FIX_VAR, _FIX),
        latent=_latent(env) if mode != "off" else GuardConfig.latent,
    )
    if config.bounds:  # the one mode that reads it (for its device assert)
        _async_assert(env)
    return config


def _latent(env: Mapping[str, str]) -> str:
    """SGLang parses ``int(value)`` (so ``02`` and `` +2 `` mean 2); the names are ours too."""
    raw = env.get(LATENT_VAR, "")
    try:
        raw = str(int(raw))
    except ValueError:
        pass
    return _pick({LATENT_VAR: raw}, LATENT_VAR, _LATENT)


def async_assert(environ: Mapping[str, str] | None = None) -> bool:
    """``SGLANG_ENABLE_ASYNC_ASSERT`` as SGLang's ``EnvBool`` reads it (unset: off)."""
    env = os.environ if environ is None else environ
    return SGLANG_BOOL.get(env.get(ASYNC_ASSERT_VAR, "false").lower(), False)


def _async_assert(env: Mapping[str, str]) -> None:
    """A value SGLang would warn about and read as off is refused at load: the user asked
    for device asserts and would get host checks without a word."""
    raw = env.get(ASYNC_ASSERT_VAR)
    if raw is not None and raw.lower() not in SGLANG_BOOL:
        raise PoolGuardConfigError(f"{ASYNC_ASSERT_VAR}={_quoted(raw)} is not valid; accepted "
                                   f"values (as SGLang reads them): unset, "
                                   f"{', '.join(SGLANG_BOOL)}")


def plugin_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """Whether SGLang's loader calls this plugin. Read as SGLang 0.5.x reads it: unset or empty
    loads every installed plugin; any other value loads only the names it lists (split on
    commas, stripped), so a value that lists none (``" "``, ``","``) loads no plugin at all."""
    env = os.environ if environ is None else environ
    raw = env.get(PLUGINS_VAR, "")
    return not raw or PLUGIN_NAME in {name.strip() for name in raw.split(",")}
