"""The rules' shared vocabulary, and the text pre-filter derived from it (one source of truth).

Every name the analysis in ``_flow`` treats as a source of SWA state is listed here once. The
pre-filter in ``may_match`` only asks whether a source could mention any of them, so it can
skip a file only when the parser would also find nothing: it looks for plain substrings, never
for a syntactic shape (comments, calls in a base list, form feeds or CR-only newlines cannot
hide a class from it).
"""
from __future__ import annotations

from lint_rules.options import Options

ACTIVE_POOL = "token_to_kv_pool"  # the pool a backend reads; FROZEN_KV MTP rebinds it
ALLOCATOR = "token_to_kv_pool_allocator"
ALLOCATOR_POOL = "get_kvcache"  # the allocator's own pool: what a resolver consults
DEFAULT_FLAG = "use_sliding_window_kv_pool"
BACKEND_SUFFIX = "Backend"  # also covers ...AttnBackend / ...AttentionBackend
# Words that make an attribute, a type name or a duck-typing string SWA-specific.
SWA_WORDS = ("swa", "sliding", "layers_mapping", "translate_loc")
# Prefixes of boolean flag names (a runner attribute ``is_hybrid_swa`` is a flag; a
# ``sliding_window_size`` is not).
FLAG_PREFIXES = ("is_", "use_", "has_", "enable_", "uses_")
# A method whose name holds one of these, or that takes a batch, runs once per forward.
PER_FORWARD_WORDS = ("forward",)
PER_FORWARD_PARAMS = ("batch",)
TYPE_PROBES = ("__name__", "__qualname__", "__class__")
CACHED_DECORATORS = ("cached_property", "cache", "lru_cache")


# Model geometry that both pools share even when its name says SWA (a window size, a dtype).
GEOMETRY_WORDS = ("window", "dtype", "head_dim", "page_size", "device")


def is_geometry(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in GEOMETRY_WORDS)


def is_swa_word(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in SWA_WORDS)


def is_flag_name(name: str) -> bool:
    """A boolean-looking SWA name: ``is_hybrid_swa``, ``use_sliding_window_kv_pool``."""
    return name.startswith(FLAG_PREFIXES) and is_swa_word(name)


def may_match(source: str, options: Options = Options()) -> bool:
    """False only when no rule can fire: no ``class`` with a backend base name in the text, or
    none of the vocabulary above (nor a configured flag / pool attribute name)."""
    if "class" not in source:
        return False
    if BACKEND_SUFFIX not in source and not any(b in source for b in options.backend_bases):
        return False
    lowered = source.lower()
    if ACTIVE_POOL in source or any(word in lowered for word in SWA_WORDS):
        return True
    return any(name in source for name in (*options.swa_flags, options.pool_attr))
