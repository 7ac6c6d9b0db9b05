"""Test-only start-up hook: a Python started with this folder on PYTHONPATH imports SGLang the
way the CPU test environment needs (``runtime_guard.demo.sglang_cpu``) and has the
``sgl_kernel`` shim, so a subprocess of the real ``poolguard`` CLI sees SGLang as a GPU host would.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import kernel_shim  # noqa: E402

from runtime_guard.demo.sglang_cpu import import_sglang_for_cpu  # noqa: E402

kernel_shim.install()
import_sglang_for_cpu()
