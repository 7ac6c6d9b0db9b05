"""Fixes as libcst transforms (the resolver codemod of ``--unsafe-fixes`` lives in ``resolver``)."""
