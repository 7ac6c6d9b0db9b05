"""The rules' shared vocabulary, and the text pre-filter derived from it (one source of truth).

Every name the analysis in ``_flow`` treats as a source of SWA state is listed here once. The
pre-filter in ``may_match`` only asks whether a source could mention any of them, so it can
skip a file only when the parser would also find nothing: it looks for plain substrings, never
for a syntactic shape (comments, calls in a base list, form feeds or CR-only newlines cannot
hide a class from it).
"""
from __future__ import annotations

import functools
import re

from typing import Optional, Tuple

from lint_rules.options import Options

ACTIVE_POOL = "token_to_kv_pool"  # the pool a backend reads; FROZEN_KV MTP rebinds it
ALLOCATOR = "token_to_kv_pool_allocator"
ALLOCATOR_POOL = "get_kvcache"  # the allocator's own pool: what a resolver consults
# The runner's other pools: draft and target share them, no swap rebinds them (read off a
# record or an inner backend, they are not the KV pool).
SHARED_POOLS = ("req_to_token_pool", ALLOCATOR)
DEFAULT_FLAG = "use_sliding_window_kv_pool"
# SGLang's forward-context accessors (sglang.srt.model_executor.forward_context): the pool, or
# the backend whose token_to_kv_pool is, of the forward under way when called.
POOL_ACCESSORS = ("get_token_to_kv_pool",)
BACKEND_ACCESSORS = ("get_attn_backend",)
CONTEXT_ACCESSOR, CONTEXT_BACKEND = "get_forward_context", "attn_backend"
# A class whose name ends so builds the pools (SGLang's ``ModelRunner``), as a parameter or
# attribute whose name ends in ``runner`` holds one: what it builds from its own pool once is
# the draft runner's, whatever pool a FROZEN_KV swap hands the backend later.
RUNNER_SUFFIX = "Runner"
BACKEND_SUFFIX = "Backend"  # also covers ...AttnBackend / ...AttentionBackend
# attributes named so hold inner backends (self.backend, self.decode_backend, self.backends):
# a decision on their SWA flag is one on the pool they were built on
INNER_HOLDER_SUFFIXES = ("backend", "backends")
# Methods of SGLang's attention backend protocol: a class defining one is a backend whatever it
# and its bases are called (``DllmFlashAttention``, a helper base ``_DecodeOnly``).
BACKEND_METHODS = ("forward_decode", "forward_extend", "forward_mixed", "init_forward_metadata",
                   "init_cuda_graph_state", "init_forward_metadata_capture_cuda_graph",
                   "init_forward_metadata_replay_cuda_graph")
DISPATCH_METHOD = "forward"  # AttentionBackend.forward, which calls the launch methods
# A class is a backend by those methods only when it is one: its per-layer methods take the layer
# they attend for (a model runner's ``forward_decode(forward_batch)`` runs the whole model) and it
# does not create the pool or allocator (their owner, the runner, whose backends' pool is swapped).
LAYER_METHODS = ("forward_decode", "forward_extend", "forward_mixed")
LAYER_PARAM = "layer"
OWNED = (ACTIVE_POOL, ALLOCATOR)
# A unittest class (``TestFlashAttentionBackend(CustomTestCase)``) is never a backend.
TEST_CASE_SUFFIX = "TestCase"
# Words that make an attribute, a type name or a duck-typing string SWA-specific.
SWA_WORDS = ("swa", "sliding", "layers_mapping", "translate_loc")
# Prefixes of boolean flag names (a runner attribute ``is_hybrid_swa`` is a flag; a
# ``sliding_window_size`` is not).
FLAG_PREFIXES = ("is_", "use_", "has_", "enable_", "uses_")
# A method whose name holds one of these, or that takes a batch, runs once per forward.
PER_FORWARD_WORDS = ("forward",)
PER_FORWARD_PARAMS = ("batch",)
TYPE_NAMES = ("__name__", "__qualname__")  # a class's name: a string, no data of the pool
TYPE_PROBES = (*TYPE_NAMES, "__class__", "__mro__", "__bases__")
# What a class a type test names must say to be a KV pool or allocator class (``SWAKVPool``,
# ``SWATokenToKVPoolAllocator``): ``isinstance(layer, SWAAttention)`` tests a model layer.
POOL_TYPE_WORDS = ("pool", "kv", "cache", "allocator", "memory")
CACHED_DECORATORS = ("cached_property", "cache", "lru_cache")


# Model geometry that both pools share even when its name says SWA (a window size, a dtype).
GEOMETRY_WORDS = ("window", "dtype", "head_dim", "page_size", "device", "quant", "fp8", "fp4",
                  "int8", "scale", "layout")
# Read off a pool, these name numbers and shapes (sizes, counts, layer ranges), not state (but
# its capacity: ``is_capacity``); anything else read off a pool (a sub-pool, a mapping, a
# buffer, a bound method) is its state.
SHAPE_WORDS = ("size", "num", "count", "len", "dim", "head", "layer", "rank", "shape",
               "capacity", "start", "end", "stride", "nbytes", "itemsize", "ratio", "mem_usage")
# A pool's capacity: how many token slots it has (``size``, ``size_swa``, ``full_capacity``).
# Not geometry: the FROZEN_KV draft's dummy pool and the target's differ in size. Only names
# made of these words are (``swa_req_ring_size`` and ``page_size`` are configuration).
CAPACITY_WORDS = frozenset({"size", "capacity"})
CAPACITY_PARTS = CAPACITY_WORDS | {"swa", "full", "total", "max", "kv", "token", "slot", "num"}
# Calls that allocate a buffer of the shape they are given, and calls that compute a number
# from theirs (a capacity stays one through them).
ALLOCATING = frozenset({"zeros", "empty", "ones", "full", "arange", "rand", "randn", "randint",
                        "new_zeros", "new_empty", "new_ones", "new_full", "empty_strided"})
COUNTING = frozenset({"int", "max", "min", "abs", "round", "ceil", "floor", "cdiv",
                      "next_power_of_2", "ceil_div"})
# Calls that make one number of many (``sum(p.size for p in subs)``): of capacities, a capacity.
TALLIES = COUNTING | {"sum", "fsum"}
# How a value flows through calls (``_flow``): containers built around it, methods that fill a
# container in place, accessors that hand back what it holds, reductions of tests.
CONTAINERS = frozenset({"dict", "list", "tuple", "set", "frozenset", "SimpleNamespace",
                        "partial", "OrderedDict", "MappingProxyType", "deque", "defaultdict",
                        "ChainMap", "namedtuple", "map", "filter", "zip", "sorted", "reversed",
                        "enumerate", "iter", "chain", "array"})
# Decorators and bases that make a class a record of its fields (dataclasses, attrs, pydantic).
RECORD_MARKS = frozenset({"dataclass", "NamedTuple", "TypedDict", "define", "frozen", "mutable",
                          "attrs", "BaseModel"})
# A partial's own parts (``p.func``, ``p.args``, ``p.keywords``): what it was built around.
PARTIAL_PARTS = frozenset({"func", "args", "keywords"})
# weakref.ref(x) / proxy(x) / WeakMethod(x.m): a reference to x (called, or read through: x)
REFERENCES = frozenset({"ref", "proxy", "WeakMethod"})
FILLERS = frozenset({"append", "extend", "add", "update", "insert", "setdefault",
                     "appendleft", "__setitem__", "set", "put", "put_nowait"})  # (set: a
# ContextVar's value, put: a queue's items: what they are handed, kept in them)
ACCESSORS = frozenset({"get", "pop", "values", "items", "copy", "__getitem__", "popitem",
                       "setdefault"})
REDUCERS = frozenset({"any", "all"})
# Calls that hand back what the awaitable they are given produces (an event loop running a
# coroutine, a task or future wrapping one): ``asyncio.run(probe(pool))`` is probe's result
# (``run`` only as ``asyncio.run``: the name is common); ``gather`` gives a list of them.
AWAITING = frozenset({"run", "run_until_complete", "wait_for", "shield", "ensure_future",
                      "create_task", "run_coroutine_threadsafe", "wrap_future"})
GATHERING = frozenset({"gather"})
# Calls that run the callable they are given with the arguments that follow it, now or on
# another thread (``executor.submit(probe, pool)``, ``asyncio.to_thread(probe, pool)``,
# ``loop.run_in_executor(None, probe, pool)``: the callable's index among the arguments); a
# future's ``result()`` is what it ran returned.
SUBMITTING = {"submit": 0, "to_thread": 0, "run_in_executor": 1}
# functions and methods that copy a record: the copy holds the original's fields but for the
# keywords given (dataclasses.replace(meta, kv_indices=loc), meta._replace(...), copy.copy(meta))
RECORD_COPIERS = frozenset({"replace", "copy", "deepcopy", "evolve"})  # (attrs.evolve too)
RECORD_COPY_METHODS = frozenset({"_replace", "copy", "__copy__"})
CONTAINER_COPIERS = frozenset({"dict", "list", "tuple", "set", "frozenset", "OrderedDict", "copy",
                               "deepcopy"})  # a whole copy of the container they are given


# The name predicates below are pure functions of one identifier, asked at nearly every node
# of every flow (a few hundred distinct names per run): each answer is computed once.
_by_name = functools.lru_cache(maxsize=None)


# A method of a pool whose result is its data (a buffer, a sub-pool, a mapping, a translated
# location) rather than its configuration (``get_kv_cache_quant_method``, ``get_layout``).
DATA_WORDS = ("buffer", "pool", "mapping", "translate", "loc", "kv_cache", "index", "indices")


# A pool getter whose result is one layer's tensor or state object (``get_key_buffer(i)``,
# ``get_value_scale(i)``, ``get_attention_compress_states(i)``): the data of that pool, even
# where its name also says geometry (a scale).
PER_LAYER_WORDS = ("buffer", "scale", "states")


@_by_name
def returns_pool_data(method: str) -> bool:
    lowered = method.lower()
    return is_swa_word(method) or per_layer_data(method) or any(
        word in lowered for word in DATA_WORDS)


@_by_name
def per_layer_data(method: str) -> bool:
    lowered = method.lower()
    return lowered.startswith("get_") and any(word in lowered for word in PER_LAYER_WORDS)


@_by_name
def is_geometry(name: str) -> bool:
    """A geometry word as whole parts of the name (``sliding_window_size``, ``kv_dtype``),
    unless the name's head, its last part, is data (``sliding_window_kv_pool``,
    ``k_scale_buffer``, ``full_to_swa_device_mapping``): a buffer of fp8 scales is a buffer."""
    parts = name_parts(name)
    if _data_head(parts):
        return False
    return any(_has_parts(parts, name_parts(word)) for word in GEOMETRY_WORDS)


def name_parts(name: str) -> list:
    """``k_scale_buffers`` -> ``["k", "scale", "buffer"]``: lower-case words, plurals singular."""
    return [part[:-1] if len(part) > 3 and part.endswith("s") else part
            for part in name.lower().split("_") if part]


# The head nouns of DATA_WORDS: a name ending in one (``..._index_mapping``, ``..._buffers``).
DATA_HEADS = frozenset(name_parts(word)[-1] for word in DATA_WORDS)


def _data_head(parts: list) -> bool:
    return bool(parts) and parts[-1] in DATA_HEADS


def _has_parts(parts: list, words: list) -> bool:
    return any(parts[i:i + len(words)] == words for i in range(len(parts) - len(words) + 1))


@_by_name
def reads_pool_state(attr: str) -> bool:
    """Whether ``pool.<attr>`` is pool state: a name whose head is data (``.k_scale_buffer``,
    ``..._device_index_mapping``), or any other read that names neither geometry nor a shape
    (``.main_pool``, ``.translate_loc_from_full_to_swa``; not ``.swa_head_num``)."""
    parts = name_parts(attr)
    if _data_head(parts):  # a mapping, a buffer, a sub-pool, unless one of layer ids or sizes
        return is_swa_word(attr) or not any(  # (sparse_layer_id_mapping; not layers_mapping)
            _has_parts(parts, name_parts(word)) for word in SHAPE_WORDS)
    if is_geometry(attr):
        return False
    lowered = attr.lower()
    return not any(word in lowered for word in SHAPE_WORDS)  # (swa_head_num: a count)


@_by_name
def is_capacity(attr: str) -> bool:
    """``pool.<attr>`` is the pool's capacity (``size``, ``size_swa``, ``max_total_num_tokens``)."""
    parts = name_parts(attr)
    counted = bool(CAPACITY_WORDS & set(parts)) or parts[-1:] == ["token"] and "num" in parts
    return counted and set(parts) <= CAPACITY_PARTS


@_by_name
def is_pool_type_name(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in POOL_TYPE_WORDS)


@_by_name
def is_swa_word(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in SWA_WORDS)


def is_class_name(name: str) -> bool:
    """``SwaState``, ``_Layout``: a class by the CapWords convention (not a CONSTANT)."""
    bare = name.lstrip("_")
    return bare[:1].isupper() and not bare.isupper()


def is_flag_like(name: str) -> bool:
    """A boolean-looking name (``is_interleaved``, ``has_scales``)."""
    return name.startswith(FLAG_PREFIXES)


@_by_name
def is_flag_name(name: str) -> bool:
    """A boolean-looking SWA name: ``is_hybrid_swa``, ``use_sliding_window_kv_pool``."""
    return name.startswith(FLAG_PREFIXES) and is_swa_word(name)


def is_test_case(bases) -> bool:
    """Base names of a unittest class (``unittest.TestCase``, ``CustomTestCase``)."""
    return any(base.endswith(TEST_CASE_SUFFIX) for base in bases)


def may_match(source: str, options: Options = Options()) -> bool:
    """False only when no rule can fire: none of the vocabulary above (nor a configured flag or
    pool attribute name) in the text, or no class that may be a backend: none whose header
    names a backend (its own name or a base's), and no definition of a backend method."""
    if "class" not in source:  # (a builder of a backend may be: ``may_build``)
        return (may_build(source, options) or writes_module_state(source)) and (
            mentions_vocabulary(source, options))
    # the cheapest tests first: most files name no backend base and define no backend method,
    # and the vocabulary's lowering of the whole text is the dearest test (flake8 asks per file)
    bases = (BACKEND_SUFFIX, *options.backend_bases)
    if not any(base in source for base in bases):
        return (_defines_backend_method(source) or _hands_backend(source) or (
            writes_module_state(source))) and mentions_vocabulary(source, options)
    if not mentions_vocabulary(source, options):
        return False
    if _defines_backend_method(source):
        return True
    return any(_header_names(source, start, bases) for start in _class_starts(source)) or (
        may_build(source, options))


HANDED = "backend"  # a name ending so holds a backend handed to the function


def may_build(source: str, options: Options = Options(), handed: bool = True) -> bool:
    """A function may keep state on a backend it builds (``b = XBackend(...)``, a configured
    base's name called, then ``b.x = ...``, ``setattr(b, ...)``, ``attach(b, ...)`` or an alias
    ``c = b`` that is) or is handed (a parameter ``backend`` / ``*_backend``, then ``backend.x
    = ...``): a builder (``_installed.built_backends``). Not ``handed``: only one a
    parameter's annotation ties to its backend class. Literal searches, and a look around
    each hit: a pattern tried at every character is slow."""
    if "def" not in source or "ackend" not in source and not options.backend_bases:
        return False  # (``Backend`` / ``backend``: one scan, before three)
    for base in (BACKEND_SUFFIX, *options.backend_bases):
        called = base + "("
        index = source.find(called)
        while index >= 0:
            name = _assigned_name(source, index)
            if name is not None and _kept(source, name):
                return True
            index = source.find(called, index + 1)
    return _annotated_kept(source) or handed and _hands_backend(source)


def _word_start(source: str, end: int, dotted: bool = False) -> int:
    """Where the word (``dotted``: the dotted name) ending at ``end`` starts."""
    while end and (source[end - 1].isalnum() or source[end - 1] == "_" or (
            dotted and source[end - 1] == ".")):
        end -= 1
    return end


def _assigned_name(source: str, index: int) -> Optional[str]:
    """``name`` of ``name = mod.XBackend(`` when the call at ``index`` (inside its name) is
    one assigned to a plain name."""
    target = _target_of(source, _word_start(source, index, dotted=True))
    return source[target[0]:target[1]] if target and source[target[0] - 1:target[0]] != "." \
        else None


def _target_of(source: str, at: int) -> Optional[Tuple[int, int]]:
    """``(start, end)`` of the word ``w`` of a plain assignment ``w = `` that ends (spaces
    aside) just before ``at``; None when no ``=`` (not ``==``, ``<=``, ``+=``...) stands there."""
    while at and source[at - 1] in " \t":
        at -= 1
    if not at or source[at - 1] != "=" or at > 1 and source[at - 2] in "=!<>:+-*/%&|^@":
        return None
    at -= 1
    while at and source[at - 1] in " \t":
        at -= 1
    start = _word_start(source, at)
    return (start, at) if start < at else None


def _kept(source: str, name: str, alias: bool = True, handed: bool = True) -> bool:
    """The name holding a backend is stored on (``backend.x = ...``), a method of it is called
    with an argument (``backend.configure(pool)``), it is handed first to a
    function (a name in lower case: ``setattr(backend, ...)``, ``attach(backend, runner)``, not
    ``Wrapper(backend)`` nor ``isinstance(backend, ...)``), or aliased to a name that is
    (``b = backend``). A literal search for the name, and a look around each hit."""
    index, size = source.find(name), len(name)
    while index >= 0:
        end = index + size
        if not _word_char(source[index - 1:index]) and not _word_char(source[end:end + 1]):
            if _STORED_AFTER.match(source, end) is not None or (
                    _HANDED_AFTER.match(source, end) is not None):
                return True
            if handed and _ARGUMENT_AFTER.match(source, end) is not None and _handed_to_function(
                    source, index):
                return True
            if alias and _LINE_ENDS.match(source, end) is not None:
                other = _aliased_as(source, index)
                if other is not None and other != name and _kept(source, other, False):
                    return True
        index = source.find(name, end)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _handed_to_function(source: str, index: int) -> bool:
    """The name at ``index`` is the first argument of a call of a function named in lower case
    (not a builtin that only looks at it)."""
    at = index
    while at and source[at - 1] in " \t":
        at -= 1
    if not at or source[at - 1] != "(":
        return False
    start = _word_start(source, at - 1, dotted=True)
    called = source[start:at - 1]
    return (called[:1].islower() or called[:1] == "_") and (
        called.rpartition(".")[2] not in LOOKERS)


def _aliased_as(source: str, index: int) -> Optional[str]:
    """``alias`` of a line ``alias = name`` whose name stands at ``index``."""
    target = _target_of(source, index)
    if target is None:
        return None
    head = target[0]
    while head and source[head - 1] in " \t":
        head -= 1
    return source[target[0]:target[1]] if not head or source[head - 1] in "\r\n" else None


# around a name holding a backend: an attribute stored on it, the first of some arguments, the
# end of its line (an alias), and the builtins that only look at what they are handed
_STORED_AFTER = re.compile(r"\.\w+[ \t]*(?::[^=\n]*)?=(?!=)")
# a method of it called with an argument (``backend.configure(pool)``): it may keep what it is
# handed (``_installed.built_backends``)
_HANDED_AFTER = re.compile(r"\.\w+\([ \t\r\n]*[^) \t\r\n]")
_ARGUMENT_AFTER = re.compile(r"[ \t]*[,)]")
_LINE_ENDS = re.compile(r"[ \t]*(?:#[^\r\n]*)?(?:\r|\n|$)")
LOOKERS = frozenset({"isinstance", "hasattr", "getattr", "type", "id", "len", "print", "str",
                     "repr", "bool", "callable", "vars", "dir", "hash"})


def _annotated_kept(source: str) -> bool:
    """A parameter annotated with a backend class (``target: "XBackend"``) that is stored on
    (``target.x = ...``)."""
    index = source.find(BACKEND_SUFFIX)
    while index >= 0:
        at = _word_start(source, index, dotted=True)
        at -= source[at - 1:at] in ("'", '"')
        while at and source[at - 1] in " \t":
            at -= 1
        if at and source[at - 1] == ":":
            at -= 1
            while at and source[at - 1] in " \t":
                at -= 1
            start = _word_start(source, at)
            if start < at and source[start - 1:start] in ("(", ",", " ", "\t", "\n") and _kept(
                    source, source[start:at], False, False):
                return True
        index = source.find(BACKEND_SUFFIX, index + len(BACKEND_SUFFIX))
    return False


def writes_module_state(source: str) -> bool:
    """A function of the module may keep what it reads of the active pool in a global of the
    module (``_facts.state_writers``): the text reads it, and a function body declares a
    global or stores into a CONSTANT-named one (``REGISTRY[kind] = ...``)."""
    if ACTIVE_POOL not in source:  # (the allocator's name holds it too)
        return False
    for store in _GLOBAL_STORE.finditer(source):  # the pool read in the same def, roughly:
        start = source.rfind("def ", 0, store.start())  # from the def the store is in to the
        end = source.find("def ", store.end())  # next one
        if ACTIVE_POOL in source[start if start >= 0 else 0: end if end >= 0 else len(source)]:
            return True
    return False


# an indented ``global NAME``, or ``NAME[...] = ...`` / ``NAME.attr = ...`` with NAME in
# CONSTANT case (a function body's store into a module's registry or state; a bare ``NAME =``
# is a local, or a class attribute, unless declared global)
_GLOBAL_STORE = re.compile(r"^[ \t]+(?:global\s|[A-Z_][A-Z0-9_]*(?:\[[^\n]*\]|\.\w+)\s*=[^=])",
                           re.MULTILINE)


def _hands_backend(source: str) -> bool:
    """A plain name ending ``backend`` stored on (``backend.x = ...``), not an attribute's
    (``self.backend.x``): a function handed one may keep on it."""
    if HANDED_AT not in source:
        return False
    for match in _STORED_ON_HANDED.finditer(source):
        start = _word_start(source, match.start())
        if source[start - 1:start] != ".":
            return True
    return False


HANDED_AT = HANDED + "."
_STORED_ON_HANDED = re.compile(re.escape(HANDED_AT) + r"\w+[ \t]*(?::[^=\n]*)?=(?!=)")


# one scan for every backend method's definition: half the cost of one ``in`` test per method
_METHOD_DEF = re.compile(r"def (?:%s)\(" % "|".join(map(re.escape, BACKEND_METHODS)))


def _defines_backend_method(source: str) -> bool:
    """A class defining one is a backend (spaced-out spellings cost a parse)."""
    return _METHOD_DEF.search(source) is not None


def mentions_vocabulary(source: str, options: Options = Options()) -> bool:
    """The text names a source of SWA state (or a configured flag or pool attribute)."""
    if ACTIVE_POOL in source:
        return True  # (lowering a whole file costs more than all the other tests)
    return _names_swa_word(source) or any(
        name in source for name in (*options.swa_flags, options.pool_attr)
    )


# The characters beyond ASCII whose lower case holds an ASCII letter (U+0130 -> "i\u0307",
# the Kelvin sign -> "k"; tests/lint/test_reading.py checks every code point).
LOWERS_TO_ASCII = ("\u0130", "\u212a")
_SWA_BYTES = tuple(word.encode() for word in SWA_WORDS) if all(
    word.isascii() for word in SWA_WORDS) else None


def _names_swa_word(source: str) -> bool:
    """``any(word in source.lower() for word in SWA_WORDS)``. An ASCII word can only be found
    in a run of ASCII letters, which every other character ends: so when no character of a
    non-ASCII text lowers into ASCII, its UTF-8 bytes lowered (ASCII only) hold the same words,
    and cost a tenth of lowering the text itself."""
    if _SWA_BYTES is None or source.isascii() or any(c in source for c in LOWERS_TO_ASCII):
        lowered = source.lower()
        return any(word in lowered for word in SWA_WORDS)
    lowered_bytes = source.encode("utf-8", "surrogatepass").lower()
    return any(word in lowered_bytes for word in _SWA_BYTES)


def _class_starts(source: str):
    """Where ``class`` keywords that begin a physical line end. A class statement starts a
    line (after indentation): a compound statement can follow neither ``;`` nor another
    statement's colon. Matches inside strings only cost a parse. Each character is looked at
    once or twice: searching back to the line's start for every "class" of a long line (or
    slicing from it) was quadratic (a 288 kB line of 'y.class_' took 0.33 s, 9 MB minutes)."""
    index, line_start, searched = source.find("class"), 0, 0
    while index >= 0:
        after = index + 5
        ends = max(source.rfind("\n", searched, index), source.rfind("\r", searched, index))
        if ends >= 0:  # a line ended since the last "class"
            line_start = ends + 1
        searched = start = index
        while start > line_start and source[start - 1] in " \t\f\ufeff":
            start -= 1  # back over the indentation only
        if start == line_start and not (
            source[after:after + 1].isalnum() or source[after:after + 1] == "_"
        ):
            yield after
        index = source.find("class", after)


HEADER_LIMIT = 20_000  # characters; a longer "header" is taken as a match (never skipped)


def _header_names(source: str, start: int, names: tuple) -> bool:
    """Whether the class header from ``start`` to its colon mentions one of ``names``.

    Scans like the tokenizer: brackets nest, comments and strings are skipped, so a ``)`` or
    ``:`` inside them ends nothing. Anything it cannot follow (an f-string, an unterminated
    string, an overlong header) answers True: the parser decides.
    """
    code, index, depth, end = [], start, 0, min(len(source), start + HEADER_LIMIT)
    while index < end:
        char = source[index]
        if char == "#":
            while index < end and source[index] not in "\r\n":
                index += 1
            continue
        if char in "\"'":
            letter = index
            while letter > start and source[letter - 1].isalpha():
                letter -= 1
            index = _string_end(source, index, end)
            if index < 0 or "f" in source[letter:index].lower().split(char)[0]:
                return True
            continue
        if char == "\\":
            index += 2  # a line continuation or an escaped character
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth <= 0 and char in ":\r\n":
            return any(name in "".join(code) for name in names)
        code.append(char)
        index += 1
    return True


def _string_end(source: str, index: int, end: int) -> int:
    """Index after the string literal starting at ``index``; -1 when it does not end."""
    quote = source[index] * 3 if source.startswith(source[index] * 3, index) else source[index]
    index += len(quote)
    while index < end:
        if source[index] == "\\":
            index += 2
        elif source.startswith(quote, index):
            return index + len(quote)
        elif len(quote) == 1 and source[index] in "\r\n":
            return -1
        else:
            index += 1
    return -1
