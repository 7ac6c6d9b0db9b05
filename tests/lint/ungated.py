"""``lint_source`` with the text pre-filter switched off: tests use it to prove the filter
sound (every file it skips would have had no finding). Test-only, so it lives here."""
from __future__ import annotations

from typing import Collection
from unittest import mock

import lint_rules.engine as engine


def lint_source_ungated(source: str, codes: Collection[str] = engine.DEFAULT_CODES) -> list:
    with mock.patch.object(engine, "may_match", lambda *args: True):
        return engine.lint_source(source, codes=codes)
