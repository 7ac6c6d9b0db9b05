"""Static checks for SWA KV-pool state cached from a pool swapped at runtime.

Detection runs on CPython's ``ast`` (the tree flake8 already hands a plugin; libcst's parse and
position metadata cost many times more); every fix is a libcst transform (``lint_rules.fixes``),
run only on files with a fix to apply, so formatting and comments survive by construction.
"""
