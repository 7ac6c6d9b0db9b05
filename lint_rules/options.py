"""User options shared by every rule, the flake8 adapter and the CLI (resolved once per run)."""
from __future__ import annotations

import keyword
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Union


class OptionError(ValueError):
    """A ``kvp-*`` value that cannot be used; the message names the option and the value."""


def shown(value: str) -> str:
    """A refused value as Python quotes it, cut short: an error line that quotes a
    100,000-character value whole is no longer a line a person (or a CI log) reads."""
    return repr(value) if len(value) <= 60 else f"{value[:40]!r}... ({len(value)} characters)"


def _checked_name(value: str, option: str, dotted: bool) -> str:
    """``value`` as the parser reads it, if it is a Python name (``a.b`` when ``dotted``):
    ``str.isidentifier`` (so non-ASCII names count), no keyword, NFKC-normalised as Python
    normalises identifiers (``\ufb01_pool`` is the attribute ``fi_pool`` in the code)."""
    parts = value.split(".") if dotted else [value]
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in parts):
        kind = "a Python name or dotted name" if dotted else "a Python identifier"
        raise OptionError(f"{option} must be {kind} (not a keyword), got {shown(value)}")
    normal = unicodedata.normalize("NFKC", value)
    if any(keyword.iskeyword(part) for part in normal.split(".")):  # a spelling of a keyword
        raise OptionError(f"{option} must not be a keyword however it is spelt, got "
                          f"{shown(value)}")
    return normal


@dataclass(frozen=True)
class Options:
    """Per-run configuration; the defaults match upstream SGLang naming."""

    backend_bases: tuple[str, ...] = ()  # extra base-class names that make a class a backend
    swa_flags: tuple[str, ...] = ()  # extra boolean SWA flag attribute names (KVP003)
    pool_attr: str = "_swa_kv_pool"  # the attribute KVP002/3/4 fixes read instead of a flag

    @staticmethod
    def parse_list(value: Union[str, Iterable[str], None]) -> tuple[str, ...]:
        """Turn ``"a, b"``, ``"a\n  b"`` or ``["a", " b"]`` (flake8 / config forms) into
        ``("a", "b")``: a string is split as flake8 splits its list options (commas and
        whitespace), so one config file means the same to both."""
        if not value:
            return ()
        if isinstance(value, str):
            from flake8.utils import parse_comma_separated_list  # only paid for when configured

            value = parse_comma_separated_list(value)
        items = value
        return tuple(item.strip() for item in items if item and item.strip())

    @classmethod
    def from_values(cls, backend_bases=None, swa_flags=None, pool_attr: Optional[str] = None
                    ) -> "Options":
        """The one validation of the ``kvp-*`` options, shared by the CLI, its config files
        and the flake8 plugin; raises ``OptionError`` naming the bad value."""
        bases_option, flags_option, attr_option = (spec.name for spec in OPTION_SPECS)
        bases = tuple(_checked_name(name, bases_option, dotted=True)
                      for name in cls.parse_list(backend_bases))
        flags = tuple(_checked_name(name, flags_option, dotted=True)
                      for name in cls.parse_list(swa_flags))
        attr = _checked_name(cls.pool_attr if pool_attr is None else pool_attr.strip(),
                             attr_option, dotted=False)  # (given empty: no identifier)
        if attr.startswith("__") and not attr.endswith("__"):
            # the fixes read it as getattr(self, "__x"), which never sees the mangled _Cls__x
            raise OptionError(f"{attr_option} must not be a private name (Python mangles "
                              f"{attr} per class, so the fixes could not read it), got "
                              f"{shown(attr)}")
        return cls(backend_bases=bases, swa_flags=flags, pool_attr=attr)

    @classmethod
    def from_settings(cls, settings: Mapping[str, object]) -> "Options":
        """``from_values`` over a mapping keyed by option name (``kvp-pool-attr``); an absent
        or None entry is the default."""
        return cls.from_values(**{spec.field: settings.get(spec.name) for spec in OPTION_SPECS})


@dataclass(frozen=True)
class OptionSpec:
    """One ``kvp-*`` option as every front door spells it: ``--<name>`` on the command line
    and to flake8, ``<name>`` as a config key, ``Options.<field>`` once read."""

    name: str
    field: str
    listed: bool  # a list of names (commas and whitespace split it) or one name
    help: str

    @property
    def dest(self) -> str:
        """The attribute argparse and flake8 keep the option's value under."""
        return self.name.replace("-", "_")

    @property
    def metavar(self) -> str:
        return "NAMES" if self.listed else "NAME"


OPTION_SPECS = (  # the order of Options.from_values' parameters
    OptionSpec("kvp-backend-bases", "backend_bases", True,
               "extra base-class names that make a class an attention backend"),
    OptionSpec("kvp-swa-flags", "swa_flags", True,
               "extra boolean SWA flag attribute names (KVP003)"),
    OptionSpec("kvp-pool-attr", "pool_attr", False,
               f"pool attribute the fixes read (default: {Options.pool_attr})"),
)
