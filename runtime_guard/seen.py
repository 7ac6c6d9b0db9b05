"""Which backend classes the guard has seen run: the trigger of late coverage.

The hooks every launch or forward passes (the base dispatch, the table classes' metadata hook,
``set_forward_context``) call ``first_sight`` for a class not in ``SEEN``; once the plugin has
registered late coverage (``runtime_guard.late``), that hooks what the class runs unguarded.
A leaf module, so the hooks reach late coverage without importing it.
"""

from __future__ import annotations

SEEN: set = set()  # classes whose coverage was decided
_cover: list = []  # the plugin's cover function, once registered


def first_sight(cls: type) -> None:
    """Cover ``cls`` if late coverage is on (a no-op, leaving it unseen, until then)."""
    if _cover:
        _cover[0](cls)


def set_cover(cover) -> None:
    _cover[:] = [cover]
