"""Registry of lint rules: one module per code, listed once in ``RULES``."""
RULES: tuple = ()
