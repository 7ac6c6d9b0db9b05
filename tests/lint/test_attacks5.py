"""A fifth hostile round on the CLI (attack5): configs, baselines and machine formats, through
the real ``poolguard`` subprocess on real files."""
from __future__ import annotations

import codecs
import json
import os

import pytest
from clirun import STALE, poolguard, write


def test_a_config_saved_with_a_byte_order_mark_is_named_not_dropped(tmp_path):
    # Notepad's "UTF-8" puts a BOM before "[flake8]": the header then did not count as ours,
    # so the user's ignore was dropped without a word (flake8 drops it too): now one line
    config = codecs.BOM_UTF8 + b"[flake8]\nextend-ignore = KVP001\n"
    root = write(tmp_path / "t", {"s.py": STALE, "setup.cfg": config, "my.cfg": config})
    for args in ([], ["--config", "my.cfg"]):
        done = poolguard("lint", "--no-cache", *args, "s.py", cwd=root, expect=2)
        assert done.stdout == ""
        assert "byte order mark" in done.stderr and "without it" in done.stderr, done.stderr
    # a file that is not ours is still not ours, BOM or not
    (root / "setup.cfg").write_bytes(codecs.BOM_UTF8 + b"[metadata]\nname = x\n")
    poolguard("lint", "--no-cache", "s.py", cwd=root, expect=1)


def test_a_baseline_reached_through_a_file_link_matches_by_where_it_lives(tmp_path):
    # the rows were made relative to the link's folder, but the baseline lives in the target's:
    # read by its real path (or as /dev/stdin) every finding came back as new
    root = write(tmp_path / "t", {"s.py": STALE})
    (root / "keep").mkdir()
    os.symlink("keep/real.json", root / "link.json")
    poolguard("lint", "--no-cache", "--write-baseline", "link.json", "s.py", cwd=root, expect=0)
    rows = json.loads((root / "keep" / "real.json").read_text())["findings"]
    assert [row["path"] for row in rows] == ["../s.py"]
    for baseline in ("link.json", "keep/real.json"):
        done = poolguard("lint", "--no-cache", "--baseline", baseline, "s.py", cwd=root,
                         expect=0)
        assert "1 finding hidden by the baseline" in done.stderr, done.stderr
    with open(root / "keep" / "real.json", "rb") as stdin:
        done = poolguard("lint", "--no-cache", "--baseline", "/dev/stdin", "s.py", cwd=root,
                         expect=0, stdin=stdin)
    assert "1 finding hidden by the baseline" in done.stderr, done.stderr


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
@pytest.mark.parametrize("job", [["--add-noqa"], ["--write-baseline", "bl.json"]])
def test_a_machine_format_is_always_a_whole_document(tmp_path, fmt, job):
    # --add-noqa and --write-baseline printed nothing on stdout: `| jq` failed on a clean run
    root = write(tmp_path / "t", {"s.py": STALE})
    done = poolguard("lint", "--no-cache", "--format", fmt, *job, "s.py", cwd=root, expect=0)
    if fmt == "json":
        assert json.loads(done.stdout) == []
    elif fmt == "sarif":
        assert json.loads(done.stdout)["runs"][0]["results"] == []
    else:
        assert done.stdout == ""
    again = poolguard("lint", "--no-cache", "--format", fmt,
                      *(["--baseline", "bl.json"] if "bl.json" in job else []), "s.py",
                      cwd=root, expect=0)
    assert again.stdout == done.stdout


def test_a_config_line_that_is_no_key_value_pair_is_named_by_number(tmp_path):
    # "Source contains parsing errors: 'setup.cfg'" said neither which line nor what is wrong
    root = write(tmp_path / "t", {"s.py": STALE,
                                  "setup.cfg": "[flake8]\n# ours\nselect KVP001\nignore = E1\n"})
    done = poolguard("lint", "--no-cache", "s.py", cwd=root, expect=2)
    assert done.stderr.splitlines() == [
        f"poolguard: error: cannot parse config file {root / 'setup.cfg'}: line 3 is no "
        "'key = value' pair: 'select KVP001'"]
