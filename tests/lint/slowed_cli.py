"""The real CLI with a fixed pause before each file's analysis, for the signal tests.

A signal test needs a run that is still busy when the signal comes; a tree sized by how long
the lint takes stops being one each time the lint gets faster (the analysis got 4 x faster in
two sessions). The pause runs in the workers, so the run's own handling of the signal (the main
process ending its workers) is what is tested, not the pause.
"""
from __future__ import annotations

import sys
import time

import lint_rules.runner as runner

SCRIPT = __file__  # what a test runs: [sys.executable, SCRIPT, "lint", ...]
PAUSE_S = 0.05  # per file, in a worker: 400 files on two workers keep a run busy for 10 s
_analyse = runner.analyse


def default_signals() -> None:
    """``preexec_fn`` for the test's child: SIGINT and SIGHUP as a terminal leaves them. A test
    run started under ``nohup`` or as a background job inherits them ignored, and the CLI rightly
    keeps an ignored signal ignored, so the signal tests would test the launcher, not the CLI."""
    import signal

    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)


def analyse_after_a_pause(mode, options, job):
    time.sleep(PAUSE_S)
    return _analyse(mode, options, job)


if __name__ == "__main__":
    runner.analyse = analyse_after_a_pause  # forked workers unpickle it from this __main__
    from lint_rules.cli import main

    sys.exit(main(sys.argv[1:]))
