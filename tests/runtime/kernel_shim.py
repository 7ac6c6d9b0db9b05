"""Test-only import shim for compiled kernel packages a CPU host lacks (``sgl_kernel``).

SGLang's FlashAttention and XPU backend modules import ``sgl_kernel`` at module level, only to
call its kernels later. To let the plugin-loader tests import those modules and check that their
classes get hooked, ``install()`` makes ``import sgl_kernel`` (and any submodule) succeed with
placeholders that raise if a kernel is ever called. Nothing else is shimmed; serving code and
the guard never import this.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types

SHIMMED = ("sgl_kernel",)


class _Placeholder:
    def __init__(self, name: str) -> None:
        self._name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self._name} is a test shim: no kernel on this host")

    def __getattr__(self, attr: str) -> "_Placeholder":
        return _Placeholder(f"{self._name}.{attr}")

    def __mro_entries__(self, bases):  # usable as a base class in `class X(shim.Y)`
        return (object,)


class _ShimModule(types.ModuleType):
    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Placeholder(f"{self.__name__}.{attr}")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in SHIMMED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _ShimModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module) -> None:
        pass


def install() -> None:
    """Make the shimmed packages importable in this process (idempotent)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
