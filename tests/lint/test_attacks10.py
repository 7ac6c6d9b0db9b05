"""A tenth hostile round on the CLI (tidy10): what the earlier rounds left, through the real
``poolguard`` subprocess on real files."""
from __future__ import annotations

import json

import pytest
from clirun import STALE, poolguard, write


@pytest.mark.parametrize("occurrence", ["true", "false", "0", "-1", "1.0", '"1"', "null", "[1]"])
def test_a_baseline_occurrence_that_is_no_whole_number_is_refused(tmp_path, occurrence):
    # JSON's true is Python's True, an int equal to 1: it matched occurrence 1 and hid the
    # finding, where any other value that --write-baseline never writes is refused
    root = write(tmp_path / "t", {"b.py": STALE})
    poolguard("lint", "--isolated", "--no-cache", "--write-baseline", "base.json", "b.py",
              cwd=root, expect=0)
    payload = json.loads((root / "base.json").read_text())
    payload["findings"][0]["occurrence"] = json.loads(occurrence)
    (root / "base.json").write_text(json.dumps(payload))
    done = poolguard("lint", "--isolated", "--no-cache", "--baseline", "base.json", "b.py",
                     cwd=root, expect=2)
    assert done.stderr.splitlines() == [
        f"poolguard: error: baseline base.json has malformed findings (finding 1: occurrence "
        f"{occurrence} is not a whole number from 1 up)"], done.stderr
