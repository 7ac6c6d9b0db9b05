"""``poolguard demo``: the whole story on an embedded example, in three short steps.

1. lint the bundled pre-fix TRTLLM MHA backend (the shape of upstream issue #26957),
2. show the diff of the safe autofixes and what still needs a human,
3. if SGLang imports, replay the FROZEN_KV pool swap on real SGLang pools on the CPU with the
   runtime guard on (``runtime_guard.demo.replay``) and show it catching it.

It lives with the runtime guard's demo code because it tells the story of both packages; the
lint side is reached through its public engine and output functions.

Findings are the expected outcome here, so the demo exits 0 when every step ran as intended.
"""
from __future__ import annotations

import contextlib
import difflib
import io
import logging
import sys
import warnings
from importlib import resources

import lint_rules.examples
from lint_rules.engine import DEFAULT_CODES, fix_source, lint_source
from lint_rules.output import render_text
from runtime_guard.demo.replay import replay_frozen_kv_swap

EXAMPLE = "trtllm_backend_prefix.py"


def example_source() -> str:
    """The bundled pre-fix backend, shipped as package data of the lint's examples."""
    return resources.files(lint_rules.examples).joinpath(EXAMPLE).read_text("utf-8")


def _header(out, title: str) -> None:
    out.write(f"\n== {title} ==\n\n")


def lint_step(out, source: str) -> list:
    _header(out, f"1. poolguard lint {EXAMPLE}")
    findings = lint_source(source, codes=DEFAULT_CODES, honor_noqa=True)
    out.write(render_text([(EXAMPLE, f) for f in findings]) or "(no findings)\n")
    fixable = sum(f.fixable for f in findings)
    out.write(f"\n{len(findings)} findings, {fixable} fixable ([*]).\n")
    return findings


def fix_step(out, source: str) -> list:
    _header(out, f"2. poolguard lint --diff {EXAMPLE}")
    fixed, remaining = fix_source(source, codes=DEFAULT_CODES, honor_noqa=True)
    diff = difflib.unified_diff(
        source.splitlines(keepends=True), fixed.splitlines(keepends=True),
        fromfile=f"a/{EXAMPLE}", tofile=f"b/{EXAMPLE}",
    )
    out.write("".join(diff) or "(nothing to fix automatically)\n")
    if remaining:
        out.write("\nLeft for a human after --fix (`poolguard explain CODE` shows each fix):\n")
        out.write(render_text([(EXAMPLE, f) for f in remaining]))
    return remaining


@contextlib.contextmanager
def _quiet(sink):
    """Hold back SGLang's import-time chatter on a CPU box (CUDA/AWQ warnings, logging);
    it is shown only if the replay fails."""
    handler = logging.StreamHandler(sink)
    root = logging.getLogger()
    root.addHandler(handler)
    saved = [(h, h.level) for h in root.handlers if h is not handler]
    for other, _ in saved:
        other.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(sink), \
                contextlib.redirect_stderr(sink):
            warnings.simplefilter("ignore")
            yield
    finally:
        root.removeHandler(handler)
        for other, level in saved:
            other.setLevel(level)


def replay_step(out) -> bool:
    """Run the runtime replay if SGLang imports; False only if it broke."""
    _header(out, "3. runtime guard: FROZEN_KV MTP pool swap on real SGLang pools (CPU)")
    noise = io.StringIO()
    try:
        with _quiet(noise):
            report = replay_frozen_kv_swap()
    except ImportError as exc:
        out.write(f"runtime replay skipped: SGLang is not importable here ({exc}).\n")
        return True
    except Exception as exc:  # the replay is the last step: report it, do not hide it
        out.write(noise.getvalue())
        out.write(f"runtime replay failed unexpectedly: {type(exc).__name__}: {exc}\n")
        return False
    out.write(report if report.endswith("\n") else report + "\n")
    return True


def run_demo(out=None) -> int:
    out = out or sys.stdout
    try:
        source = example_source()
    except OSError as exc:
        sys.stderr.write(f"poolguard: error: the bundled example is missing ({exc.strerror}); "
                         "reinstall sglang-poolguard\n")
        return 2
    lint_step(out, source)
    fix_step(out, source)
    ok = replay_step(out)
    out.flush()
    return 0 if ok else 1
