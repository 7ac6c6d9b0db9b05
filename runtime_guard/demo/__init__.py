"""Demo and test support: real SGLang objects on a CPU, never imported by serving code.

``poolguard demo`` tells its story here (``story``: lint, fix, then the runtime replay). It,
the test suite and the benchmarks build their scenarios here (``scenarios``), import SGLang on
a machine without a GPU (``sglang_cpu``) and replay the FROZEN_KV MTP pool swap (``replay``,
``torch_native``). The guard's production modules never import this package.
"""

from runtime_guard.demo.replay import replay_frozen_kv_swap

__all__ = ["replay_frozen_kv_swap"]
