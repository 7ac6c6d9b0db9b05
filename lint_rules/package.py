"""The package index: what the other modules of a linted package define, for ``poolguard lint``.

flake8 sees one file at a time; ``poolguard lint DIR`` sees the package. The index maps module
names to the run's files (by every dotted suffix of their paths, so ``from
sglang.srt.layers.attention.kv_shard_hooks import f`` finds ``kv_shard_hooks.py`` of a vendored
copy too; relative imports resolve from the importer). Modules are parsed on demand and
summarised once per process: a class's stored state, properties, method results and stale
flags (``ClassSummary``, its own bases in other modules folded in), and what a function returns
for arguments holding given taints. Every file a summary read is recorded with its digest
(``deps``): a cached result is reused only while those files are unchanged (``runner``).
"""
from __future__ import annotations

import ast
import bisect
import errno
import itertools
import json
import os
import re
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

from lint_rules.cache import (ASKED, MAX_CACHE_BYTES, SELF_KEY, TREE_KEY, cache_file, fingerprint,
                              not_written, write_atomically)
from lint_rules.files import (MAX_PARSED_CHARS, digest_bytes, first_two_lines, package_root,
                              read_regular_file)
from lint_rules.options import Options
from lint_rules.rules._flow import CLEAN, Taint, last_name, nodes_under
from lint_rules.rules._vocab import (ACTIVE_POOL, BACKEND_SUFFIX, RUNNER_SUFFIX, is_test_case,
                                     may_build, mentions_vocabulary)

BACKEND_WORD = BACKEND_SUFFIX.encode()
WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
WORD_ENDS = frozenset(bytes([b]) for b in WORD_BYTES)  # a byte that goes on with the word
MAX_HOPS = 8  # re-exports followed through __init__ modules before giving up
# A class statement's name and base list, read from the text (nested parentheses are rare in
# base lists; a header this misses only costs a file the package view, never a crash).
CLASS_HEADER = re.compile(r"[ \t]*class[ \t]+(\w+)[ \t]*(?:\(([^()]*)\))?[ \t]*:")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# ``name as `` just before an alias in an import statement (``_aliased_import``), the opening
# of a parenthesised import list, and what follows ``Alias`` on a top-level ``Alias = name``
_MAX_NAME = 256  # a name longer than this is looked at no further (a bound on each look back)
IMPORTED_AS = re.compile(r"(\w+)[ \t]+as[ \t]+$")
IMPORT_OPENS = re.compile(r"import[ \t]*\($")
LINE_BOUND = re.compile(r"[\r\n](\w+)[ \t]*=(?!=)")  # a line's first word, then '='
ASSIGNED_VALUE = re.compile(r"[ \t]*=[ \t]*(?:\w+\.)*(\w+)[ \t]*(?:#[^\r\n]*)?(?=\r|\n|$)")
STAR_IMPORT = re.compile(rb"\bimport[ \t]*\*")
STAR_TEXT = re.compile(r"import(?:[ \t\f]|\\(?:\r\n|\r|\n))*\*")  # also continued lines
# a line beginning ``def name`` (``_only_a_function``): the name is the whole word after it
TOP_DEF = re.compile(rb"^(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)
WORD = re.compile(r"\w+", re.ASCII)
# self.<name> [: T] = ...; an annotation is read up to the next "self." (each character is
# scanned for one store at most: 'self.a:' repeated over a long line was quadratic)
SELF_STORE = re.compile(rb"self\.(\w+)\s*(?::(?:(?!self\.)[^=\n])*)?=(?!=)")


def class_headers(source: str) -> list:
    """``[[name, [base identifiers]], ...]`` for every class statement of ``source`` (a base
    imported or bound under another name, ``from m import B as A`` or ``A = B``, is listed as
    ``B`` too; one that
    begins a line, ended by CR, LF or CRLF, after spaces, tabs or form feeds; a source's BOM,
    read as U+FEFF, is taken as indentation too, as the pre-filter takes it)."""
    found, index = [], source.find("class")
    while index >= 0:  # str.find, then one anchored match: a regex tried at every line is slow
        start = index  # back over the indentation only: a long line is never rescanned
        while start and source[start - 1] in " \t\f\ufeff":  # a form feed may open a line too
            start -= 1
        match = None
        if not start or source[start - 1] in "\r\n":  # CR-only files have lines too
            match = CLASS_HEADER.match(source, index)
        if match is not None:
            found.append([match.group(1), IDENTIFIER.findall(match.group(2) or "")])
            index = source.find("class", match.end())
        else:
            index = source.find("class", index + 5)
    bound = _Bound(source)
    for _, bases in found:  # a base imported or bound under another name is that class too
        for base in list(bases):
            while bound.has(base):  # (``A = B``, ``B`` imported ``as``: a chain, each name once)
                base = _alias_target(source, base)
                if base is None or base in bases:
                    break
                bases.append(base)
    return found


class _Bound:
    """Whether a word follows `` as `` or begins a line before ``=``: the only words an alias
    can be. Asked of a class header's bases only: the first few each by literal searches for it
    (a pattern tried at every line of every file with a class base was most of the class
    graph's time); past ``LITERAL_ASKS`` words, one pass collects them all (``_bound_names``),
    so a file of many bases is still read in linear time."""

    LITERAL_ASKS = 8

    def __init__(self, source: str) -> None:
        self.source = source
        self.answers: Dict[str, bool] = {}
        self.every: Optional[frozenset] = None

    def has(self, word: str) -> bool:
        if word not in self.answers:
            if len(self.answers) >= self.LITERAL_ASKS:
                if self.every is None:
                    self.every = _bound_names(self.source)
                self.answers[word] = word in self.every
            else:
                first = WORD.match(self.source) if self.source[:1].isidentifier() else None
                self.answers[word] = self._line_bound(word) or self._after_as(word) or (
                    first is not None and first.group() == word)
        return self.answers[word]

    def _line_bound(self, word: str) -> bool:
        """``word`` is a line's first word, then ``=`` (not ``==``): ``LINE_BOUND`` there."""
        source = self.source
        for newline in "\n\r" if "\r" in source else "\n":  # (one memchr: most have no CR)
            index = source.find(newline + word)
            while index >= 0:
                match = LINE_BOUND.match(source, index)
                if match is not None and match.group(1) == word:
                    return True
                index = source.find(newline + word, index + 1)
        return False

    def _after_as(self, word: str) -> bool:
        """The ASCII word after one of the `` as `` a left-to-right scan meets is ``word``.
        Each scan step resumes after the `` as `` it met, so of `` as as `` it meets the first
        only, and of a chain of them every other one. (The chains behind two occurrences of
        `` as word`` share no position unless ``word`` is ``as``, whose first one is met: each
        position is walked once.)"""
        source, index = self.source, self.source.find(" as " + word)
        while index >= 0:
            after = WORD.match(source, index + 4)  # (None: a word that begins non-ASCII)
            if after is not None and after.group() == word:
                back = index
                while back >= 3 and source.startswith(" as ", back - 3):
                    back -= 3
                if (index - back) % 6 == 0:
                    return True
            index = source.find(" as " + word, index + 1)
        return False


def _bound_names(source: str) -> frozenset:
    """Every word ``_Bound`` says is bound, in one pass of each kind over the text."""
    found = set(LINE_BOUND.findall(source))
    index = source.find(" as ")
    while index >= 0:
        word = WORD.match(source, index + 4)
        if word is not None:
            found.add(word.group())
        index = source.find(" as ", index + 4)
    first = WORD.match(source) if source[:1].isidentifier() else None
    if first is not None:  # (None: a text that begins with a non-ASCII name)
        found.add(first.group())
    return frozenset(found)


def _alias_target(source: str, alias: str) -> Optional[str]:
    """``name`` for ``import ... name as alias`` (in an import statement) or a top-level
    ``alias = name`` / ``alias = module.name`` line of ``source``; None for neither. Each
    occurrence of ``alias`` is looked at once, from a literal search (no pattern tried at
    every position of a large file), and what lies before it (its line, the last parenthesis)
    is known from the scan so far (``_Before``): each character is looked at a bounded number
    of times, however many occurrences a line holds."""
    before, index = _Before(source), source.find(alias)
    while index >= 0:
        end = index + len(alias)
        if (not index or not _word_char(source[index - 1])) and (
                end == len(source) or not _word_char(source[end])):
            found = _aliased_import(source, index, before) or _assigned_at(source, index, end)
            if found is not None:
                return found
        index = source.find(alias, end)
    return None


class _Before:
    """What precedes positions of a text asked in increasing order: where the line holding
    one starts and where its first non-blank character is, whether `` import`` follows that
    on the line before it, and the last ``(`` and ``)`` before it. Each part of the text is
    searched once, however many positions are asked."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.done = 0  # positions before this one are searched
        self.line = 0  # where the line holding ``done`` starts
        self.opened = self.closed = -1  # the last "(" and ")" before ``done``
        self.first = -1  # the first non-blank position of ``line`` (-1: not found yet)
        self.imported = (-1, 0, -1)  # (line, searched up to, where " import" is on it or -1)

    def upto(self, index: int) -> None:
        source, done = self.source, self.done
        if index > done:
            ends = max(source.rfind("\n", done, index), source.rfind("\r", done, index))
            if ends >= 0:
                self.line, self.first = ends + 1, -1
            self.opened = max(self.opened, source.rfind("(", done, index))
            self.closed = max(self.closed, source.rfind(")", done, index))
            self.done = index

    def import_head(self, index: int, start: int) -> bool:
        """The line holding ``index`` reads, up to ``start`` and after its indentation,
        ``import ...`` or ``from ... import ...`` (``start`` on that line, up to ``index``)."""
        self.upto(index)
        source, line = self.source, self.line
        if self.first < 0:  # (the indentation of each line is walked once)
            first = line
            while first < len(source) and source[first] in " \t\f":
                first += 1
            self.first = first
        first = self.first
        if source.startswith("import ", first) and first + 7 <= start:
            return True
        if not (source.startswith("from ", first) and first + 5 <= start):
            return False
        seen, searched, found = self.imported
        if seen != line:
            searched, found = first, -1
        if found < 0 and searched < start:  # (an " import" may straddle the last bound)
            found = source.find(" import", max(first, searched - 6), start)
            searched = start
        self.imported = (line, searched, found)
        return 0 <= found and found + 7 <= start

    def open_import(self, index: int) -> bool:
        """The last ``(`` before ``index`` is unclosed there and ends ``import (``."""
        self.upto(index)
        opened = self.opened
        return opened >= 0 and self.closed < opened and IMPORT_OPENS.search(
            self.source, max(0, opened - _MAX_NAME * 4), opened + 1) is not None


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _aliased_import(source: str, index: int, scan: _Before) -> Optional[str]:
    """``name`` when the word at ``index`` ends ``name as <word>`` inside an import statement."""
    gap = index
    while gap and source[gap - 1] in " \t":
        gap -= 1
    if gap == index or source[gap - 2:gap] != "as":  # (most occurrences: one look back)
        return None
    before = IMPORTED_AS.search(source, max(0, index - _MAX_NAME), index)
    if before is None or before.end() != index:
        return None
    # (between the name and the alias, "name as ", lies no newline nor parenthesis)
    if scan.import_head(index, before.start()) or scan.open_import(index):
        return before.group(1)  # (from m import (\n    B as A,\n))
    return None


def _assigned_at(source: str, index: int, end: int) -> Optional[str]:
    """``name`` when the word at ``index`` begins a top-level ``<word> = [module.]name`` line."""
    if index and source[index - 1] not in "\r\n":
        return None
    match = ASSIGNED_VALUE.match(source, end)
    return match.group(1) if match is not None else None


@dataclass(frozen=True)
class ClassSummary:
    """A class of another module as its subclasses see it."""

    name: str
    backend: bool
    stores: Dict[str, Taint] = field(default_factory=dict)  # attr -> what it holds, kept
    properties: Dict[str, Taint] = field(default_factory=dict)  # property -> its value
    returns: Dict[str, Taint] = field(default_factory=dict)  # method -> what it returns
    flags: frozenset = frozenset()  # attributes that are stale SWA flags
    decided: frozenset = frozenset()  # attributes set only where a kept pool decision allowed
    # "planner.translate" -> what that field of an object kept whole holds (a helper built it)
    fields: Dict[str, Taint] = field(default_factory=dict)
    resolvers: frozenset = frozenset()  # its methods that ask the allocator (heirs call them)
    # method -> what builders of it hand that method ("#<position>" or keyword -> taint)
    calls: Dict[str, Dict[str, Taint]] = field(default_factory=dict)


@dataclass
class _Module:
    path: str
    name: str
    tree: ast.AST
    scope: object  # rules._facts.ModuleScope
    text: str  # the decoded source the tree is of


class PackageIndex:
    """Module names of one run's files, and their summaries computed on demand."""

    def __init__(self, files: Iterable[str], options: Options = Options(),
                 contents: Optional[Dict[str, bytes]] = None,
                 digests: Optional[Dict[str, Optional[str]]] = None) -> None:
        """``contents`` and ``digests`` (by absolute path): the bytes the run already read, so
        every module is analysed as the run read it, never read from disk a second time."""
        self.options = options
        self.given = contents is not None  # the run's reading: a file it could not read stays so
        self.contents = contents or {}
        self.digests = digests or {}
        paths = sorted({os.path.abspath(path) for path in files})
        root = package_root(paths)
        self.names: Dict[str, str] = {}  # path -> dotted name from the run's root
        self.by_key: Dict[str, List[str]] = {}  # every dotted suffix an import can spell -> paths
        # Python imports a package ``a/__init__.py`` as ``a``, never the module ``a.py`` beside it
        shadowed = {os.path.dirname(path) + ".py" for path in paths
                    if os.path.basename(path) == "__init__.py"}
        for path in paths:  # absolute and normalised, so below root by plain slicing
            parts = path[len(root):].lstrip(os.sep).split(os.sep)
            parts[-1] = parts[-1][:-3] if parts[-1].endswith(".py") else parts[-1]
            if parts[-1] == "__init__" and len(parts) > 1:
                parts.pop()
            self.names[path] = ".".join(parts)
            # no import spells a folder or file name holding a dot (``a.b.py`` is not ``a/b.py``)
            spelt = max((i + 1 for i, part in enumerate(parts) if "." in part), default=0)
            for start in range(len(parts) if path in shadowed else spelt, len(parts)):
                self.by_key.setdefault(".".join(parts[start:]), []).append(path)
        self._found: Dict[tuple, Optional[str]] = {}  # (dotted, near) -> ``find``'s answer
        self.headers: Dict[str, list] = {}  # path -> class_headers() of its text
        self.mixins: frozenset = _Asked((), "mixin", self._touch)  # classes package backends
        # inherit, by name; every membership test is recorded as read
        self.backends: set = set()  # names of the package's attention backend classes
        self.vocal: set = set()  # classes descending from one whose module names the vocabulary
        self.heard: set = set()  # mixins a backend that may hold pool state inherits
        self.subclassed_in: Dict[str, List[str]] = {}  # class name -> files of its subclasses
        self._homes: Dict[str, set] = {}  # class name -> the files defining one (``connect``)
        self._heirs: Dict[str, List[str]] = {}  # class name -> the classes naming it a base
        self._modules: Dict[str, Optional[_Module]] = {}
        self._memo: Dict[tuple, tuple] = {}  # key -> (value, deps)
        self._binds: Dict[str, Optional[frozenset]] = {}  # runner file -> self.<names> it sets
        # module not parsed yet -> its text, where every name it binds is spelled (``_may_bind``;
        # None: any name may be bound there)
        self._spelled: Dict[str, Optional[str]] = {}
        self._top_defs: Dict[str, frozenset] = {}  # module -> its ``def`` lines' names
        self._runners: Optional[List[str]] = None  # files defining a runner class
        self._open: List[Dict[str, Optional[str]]] = [{}]  # deps being collected
        self._computing: List[tuple] = []  # keys of the summaries being computed, outermost first
        self._unfinished: set = set()  # of those, the ones that read another still computing
        # [what, repeatable] per computation under way (summaries, flows, what a module scope
        # remembers), outermost first: False once it used a value a later one may not repeat
        self._frames: List[list] = []
        self._flows: Dict[ast.ClassDef, list] = {}  # class -> [(inputs, facts, deps)]: ``run_flow``
        self.stamp: Optional[str] = None  # the run's TREE_KEY, set by the runner
        self._built: Optional[Dict[str, List[str]]] = None  # ``_built_names``
        self._needles: Dict[str, List[str]] = {}  # ``_calling``
        self._builds: Dict[str, Optional[bool]] = {}  # ``_may_build``
        self._spelt: Dict[tuple, List[str]] = {}  # ``_spelling``

    # -- the class graph, from every file's class headers ---------------------------------------
    def connect(self, headers: Dict[str, list], mention: Dict[str, bool]) -> frozenset:
        """Record every file's class headers; return the files that hold package backend code
        by inheritance alone: subclasses of a package backend (whatever their text says) that
        descend from a class whose module ``mention``s the rules' vocabulary (what else could
        they inherit pool state from: a LoRA or grammar "backend" family names none), and the
        modules of the classes backends inherit from (mixins, bases) that mention it, and of
        the mixins such a backend inherits (``heard``: a mixin may gate on a flag its heirs
        decide from the pool, naming neither)."""
        self.headers = {self._absolute(p): h for p, h in headers.items()}
        self._runners = None
        self._heirs = heirs = _heirs(self.headers.values())
        tests = _closure((name for rows in self.headers.values() for name, bases in rows
                          if is_test_case(bases)), heirs)  # unittest classes: never backends
        named = self.options.backend_bases
        self.backends = backends = _closure((  # and a class is one if a base is, in any file
            name for rows in self.headers.values() for name, bases in rows
            if name.endswith(BACKEND_SUFFIX) or any(  # (its own name: no bases)
                b.endswith(BACKEND_SUFFIX) or b in named for b in bases)), heirs, tests)
        inherited, heirs_at = set(), []
        for path, rows in self.headers.items():
            for name, bases in rows:
                if name in backends:
                    if backends.intersection(bases):  # inherits a backend of the package
                        heirs_at.append((path, name))
                    inherited.update(bases)
                    for base in bases:
                        self.subclassed_in.setdefault(base, []).append(path)
        self._homes = homes = {}  # class name -> the files defining one
        for path, rows in self.headers.items():
            for name, _ in rows:
                homes.setdefault(name, set()).add(path)
        self.vocal = _closure((name for name in inherited & homes.keys()  # (by name, as
                               if any(mention.get(path) for path in homes[name])), heirs)  # above)
        holders = {path for path, name in heirs_at if name in self.vocal}
        self.mixins = _Asked((inherited & homes.keys()) - backends, "mixin", self._touch)
        self.heard = {mixin for mixin in self.mixins if any(
            heir in backends and (heir in self.vocal or any(map(mention.get, homes[heir])))
            for heir in heirs.get(mixin, ()))}
        holders.update(path for mixin in self.mixins for path in homes[mixin]
                       if mixin in self.heard or mention.get(path))
        self._built = None
        self._built_names()  # (once, here: the workers a fork makes inherit it)
        return frozenset(holders)

    def families(self, paths: List[str], count: int) -> List[List[str]]:
        """``paths`` in at most ``count`` groups, each in the given order, for workers that
        each summarise what their own group reads (``prepare``): files whose classes are tied
        by inheritance (a base and its heirs, a mixin and its heirs, at any depth, through any
        module) share a group, so no summary of the family is built twice; the groups are
        filled largest family first, each into the lightest group. A base more than
        ``HUB_HEIRS`` classes inherit (``AttentionBackend``) ties nothing: each group reads it."""
        homes, heirs = self._homes, self._heirs
        family: Dict[str, str] = {}

        def root(path: str) -> str:
            while family.get(path, path) != path:  # each step links a file to its grandparent
                family[path] = family.get(family[path], family[path])
                path = family[path]
            return path

        for path, rows in self.headers.items():
            for _, bases in rows:
                for base in bases:
                    if len(heirs.get(base, ())) <= HUB_HEIRS:
                        for home in sorted(homes.get(base, ())):
                            family[root(path)] = root(home)
        members: Dict[str, List[str]] = {}
        for path in paths:
            members.setdefault(root(self._absolute(path)), []).append(path)
        weight = {key: sum(len(self.contents.get(self._absolute(p), b"")) for p in group)
                  for key, group in members.items()}
        groups: List[List[str]] = [[] for _ in range(max(1, min(count, len(members))))]
        loads = [0] * len(groups)
        for key in sorted(members, key=lambda k: -weight[k]):
            lightest = loads.index(min(loads))
            groups[lightest].extend(members[key])
            loads[lightest] += weight[key]
        order = {path: index for index, path in enumerate(paths)}
        return [sorted(group, key=order.__getitem__) for group in groups]

    def subclass_summaries(self, scope, name: str, siblings_bare: bool = False) -> tuple:
        """Summaries of the package backends (in other modules) that inherit class ``name``:
        what a mixin's code sees ``self`` hold. The heir's other mixins come as each sees this
        heir (``sibling_summary``: a flag one derives from state the heir stores reaches
        ``name``), or bare (``siblings_bare``: that sibling view's own heirs)."""
        found = []
        heirs = self.subclassed_in.get(name, ())
        self._touch(f"{ASKED}heirs:{name}", self.answer("heirs", name, ""))
        home = os.path.abspath(getattr(scope, "path", "") or "")
        for path in heirs:
            if path == home:
                continue
            for sub, bases in self.headers.get(path, ()):
                if name in bases and self._inherits_from(path, sub, name, home):
                    view = self.heir_view(f"{self.names.get(path, '')}.{sub}")
                    if view is not None:  # (the mixin's own state is its own flow's)
                        own, bases = view
                        if not siblings_bare:
                            bases = self._siblings_seen(path, sub, bases, name)
                        found.append(merged([own, *(b for b in bases if b.name != name)],
                                            own.name, own.backend))
        return tuple(found)

    def _inherits_from(self, path: str, heir: str, name: str, home: str) -> bool:
        """Whether class ``heir`` of ``path`` inherits the class ``name`` of the file ``home``
        (the class graph pairs them by name: a copy of the package, or any other module with a
        class of that name, holds heirs of its own; taking those too made every copy's summary
        ask every other's, exponentially). A base that does not resolve counts, as before."""
        module = self.module_at(path)
        node = module.scope.classes.get(heir) if module is not None else None
        if node is None:
            return True
        for base in node.bases:
            if last_name(base) != name:
                continue
            if type(base) is ast.Name and name in module.scope.classes:
                continue  # (its own module's class of that name)
            qualified = module.scope.qualified(base)
            found = self._class_module(qualified) if qualified else None
            if found is None or found[0].path == home:
                return True
        return False

    def _siblings_seen(self, path: str, heir: str, bases: tuple, mixin: str) -> tuple:
        """``bases`` of class ``heir`` of ``path`` (its heir view's: each package mixin bare)
        with its mixins other than ``mixin`` in their sibling view instead. One step: a
        sibling view sees the heirs' with every mixin bare, so no summary asks itself."""
        module = self.module_at(path)
        node = module.scope.classes.get(heir) if module is not None else None
        seen = {}
        for base in node.bases if node is not None else ():
            qualified = module.scope.qualified(base)
            if qualified and last_name(base) in self.mixins and last_name(base) != mixin:
                summary = self.sibling_summary(qualified)
                if summary is not None:
                    seen[summary.name] = summary
        return tuple(seen.get(b.name, b) if b.name != mixin else b for b in bases)

    def heirs_bind(self, names: Iterable[str], attrs: Iterable[str], path: str) -> bool:
        """Whether another module may bind one of ``attrs`` on the classes ``names`` of
        ``path`` or their objects: it would then read or shadow the property a safe fix turns
        the flag into, or re-resolve the pool it reads, so no fix that depends on it is
        proven. Any module of the run that spells one of them otherwise than as a read
        (``_spelled_binding``: a mixin, a builder, a decorator, reached however), and a
        subclass's module binding one by a computed name (``_heirs_bind``)."""
        attrs, names = tuple(sorted(set(attrs))), list(names)
        here = os.path.abspath(path)
        return self._spelled_binding(names, attrs, here) or self._heirs_bind(names, attrs, here)

    def _spelled_binding(self, names: List[str], attrs: Tuple[str, ...], here: str) -> bool:
        """A module of the run but ``here``, tied to it or to a module of a class related to
        ``names`` (``_tied``: however it imports or is imported), that spells one of
        ``attrs`` where it may bind it on their objects (``_binds_spelled``: stored or deleted
        on another object than a method's own, in any binding form; a keyword to ``replace``
        or ``update``; a string but the name ``getattr``/``hasattr`` read; on its own objects
        or as a class attribute by a related class: a heir, a base or mixin of theirs or of a
        heir). Reads (``if self.flag:``) do not count; a module this Python cannot parse is
        scanned as text (``_binding``: no run of a syntax error binds anything, a newer
        Python's may)."""
        key = ",".join(attrs)
        self._touch(f"{ASKED}spelled:{key}", self.answer("spelled", key, here))
        related = homes = None
        for path in self._spelling(attrs):
            if path == here:
                continue
            self._touch(path, self.digests.get(path))
            module = self.module_at(path)
            if related is None:
                related = self._related(names)
                homes = {here, *(home for name in related for home in self._homes.get(name, ()))}
            tied = path in homes or any(self._tied(path, home) for home in homes)
            if module is None:  # (no Python this one parses: its text, as a scan reads it)
                if tied and _binding(attrs, others_only=True)(self.contents.get(path, b"")):
                    return True
                continue
            if _binds_spelled(module.tree, frozenset(attrs), related, frozenset(names), tied):
                return True
        return False

    def _tied(self, path: str, home: str) -> bool:
        """One of the two modules spells a name the other defines at its top level (a class,
        a function, a global) and does not define itself, or the other's module name (``from
        pkg import deco``): one may import the other, to subclass, decorate, build or
        configure what it defines."""
        return self._uses(path, home) or self._uses(home, path)

    def _uses(self, user: str, owner: str) -> bool:
        names = self._top_names(owner) - self._top_names(user)
        name = self.names.get(owner, "").rpartition(".")[2]
        if name and name != "__init__":
            names.add(name)
        text = self.contents.get(user, b"")
        return any(re.search(rb"\b%s\b" % re.escape(n.encode()), text) for n in names if n)

    def _top_names(self, path: str) -> set:
        """What a module defines at its top level: classes, functions, assigned names."""
        module = self.module_at(path)
        if module is None:
            return set()
        found = set()
        for statement in module.tree.body:
            if type(statement) in (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef):
                found.add(statement.name)
            elif type(statement) in (ast.Assign, ast.AnnAssign):
                targets = statement.targets if type(statement) is ast.Assign else [
                    statement.target]
                found.update(n.id for t in targets for n in ast.walk(t) if type(n) is ast.Name)
        return found

    def _related(self, names: List[str]) -> frozenset:
        """The classes (by name) whose objects may be those of ``names``: their heirs at any
        depth, and every base of theirs or of a heir, at any height (mixins, bases); each
        heir's answer recorded (``?heirs:``)."""
        heirs = _closure(names, self._heirs)
        for name in heirs:
            self._touch(f"{ASKED}heirs:{name}", self.answer("heirs", name, ""))
        bases: Dict[str, set] = {}
        for rows in self.headers.values():
            for name, listed in rows:
                bases.setdefault(name, set()).update(listed)
        found, todo = set(heirs), list(heirs)
        while todo:
            for base in bases.get(todo.pop(), ()):
                if base not in found:
                    found.add(base)
                    todo.append(base)
        return frozenset(found)

    def _spelling(self, attrs: Tuple[str, ...]) -> List[str]:
        """The run's files whose text spells one of ``attrs``, in order (once per run)."""
        found = self._spelt.get(attrs)
        if found is None:
            needles = [attr.encode() for attr in attrs]
            found = self._spelt[attrs] = sorted(
                path for path in self.names if any(n in self.contents.get(path, b"") for n in (
                    needles)))
        return found

    def _heirs_bind(self, names: Iterable[str], attrs: Iterable[str], here: str) -> bool:
        """Whether a file of another module holding a subclass (at any depth) of the classes
        ``names`` may bind one of ``attrs`` (assigns, deletes or names it as a string, writes
        by a computed name; one walk of the heirs for all). A file that defines a class of the
        same name inherits its own."""
        binds = _binding(attrs)
        todo, seen, heirs = list(names), set(), []
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            self._touch(f"{ASKED}heirs:{name}", self.answer("heirs", name, ""))
            for heir in self.subclassed_in.get(name, ()):
                rows = self.headers.get(heir, ())
                if heir == here or any(defined == name for defined, _ in rows):
                    continue
                todo.extend(sub for sub, bases in rows if name in bases)
                try:
                    data = self._bytes(heir)
                except OSError:
                    return True  # an unreadable heir proves nothing
                self._touch(heir, self.digests[heir])
                if binds(data):
                    return True
                heirs.append((heir, data))
        return self._imports_bind(heirs, here, attrs)

    def _imports_bind(self, heirs: list, here: str, attrs: Iterable[str]) -> bool:
        """Whether a module of the package that this file or a heir's file imports may bind one
        of ``attrs`` on another object than ``self``: a mixin's class attribute (first in the
        heir's MRO, it shadows the property), a class decorator or a helper setting it on the
        backend it is handed, a base deleting it (``del self.flag``: a property has no deleter)."""
        binds = _binding(attrs, others_only=True)
        try:
            files = [(here, self._bytes(here)), *heirs]
        except OSError:
            return True
        done = {here, *(heir for heir, _ in heirs)}
        for near, data in files:
            for dotted in _imported_modules(data):
                found = self.find(dotted, near)
                self._touch(f"{ASKED}find:{dotted}@{near}", found)
                if found is None or found in done:
                    continue
                done.add(found)
                try:
                    imported = self._bytes(found)
                except OSError:
                    return True
                self._touch(found, self.digests[found])
                if binds(imported):
                    return True
        return False

    def prepare(self, paths: Iterable[str]) -> None:
        """Parse ``paths`` and summarise what their backend classes and mixins read of other
        modules (bases, heirs), once, in this fixed order, before the first file is analysed:
        a worker does it for its own family of files (``families``), so each summary is built
        in the same order whichever file asks first, and by one worker only."""
        for path in paths:
            path = os.path.abspath(path)
            if path not in self._modules:
                self._modules[path] = self._parse(path)
            module = self._modules[path]
            if module is None:
                continue
            for node in module.scope.class_nodes:
                mixin = self.is_mixin(node.name)
                if mixin or node.name in self.backends:
                    self.foreign_bases(module.scope, node)
                if mixin:
                    self.subclass_summaries(module.scope, node.name)

    def forget(self) -> None:
        """Drop every summary (one interrupted half-way must not be inherited as final)."""
        self._memo.clear()
        self._open = [{}]
        self._computing, self._flows, self._frames = [], {}, []
        self._unfinished.clear()

    # -- the file being linted ------------------------------------------------------------------
    def begin(self, path: str) -> str:
        """Start collecting what the analysis of ``path`` reads; its dotted module name."""
        path = os.path.abspath(path)
        self._open = [{SELF_KEY: path, ASKED + "module": self.names.get(path)}]
        if self.stamp is not None:
            self._open[0][TREE_KEY] = self.stamp
        return self.names.get(path, "")

    def deps(self) -> Dict[str, Optional[str]]:
        """``{path: digest}`` of every module the current file's analysis read."""
        return dict(self._open[0])

    # -- modules ----------------------------------------------------------------------------------
    def _absolute(self, path: str) -> str:
        """``os.path.abspath(path)``; one of the run's files (already so) is not normalised
        again (the class graph asks for every file)."""
        return path if path in self.names else os.path.abspath(path)

    def is_mixin(self, name: str) -> bool:
        """Whether a package backend inherits class ``name`` (not recorded: the graph's own)."""
        return frozenset.__contains__(self.mixins, name)

    def context_of(self, path: str) -> Dict[str, Optional[str]]:
        """What decides whether ``path``, skipped by the text pre-filter, is backend code by
        inheritance (``connect``): the graph's answer for each of its classes and bases."""
        asked: Dict[str, Optional[str]] = {}
        for name, bases in self.headers.get(self._absolute(path), ()):
            asked[f"{ASKED}mixin:{name}"] = self.answer("mixin", name, path)
            asked[f"{ASKED}heard:{name}"] = self.answer("heard", name, path)
            for base in bases:
                asked[f"{ASKED}backend:{base}"] = self.answer("backend", base, path)
                asked[f"{ASKED}vocal:{base}"] = self.answer("vocal", base, path)
        if asked and self.stamp is not None:
            asked[TREE_KEY] = self.stamp
        return asked

    def answers_hold(self, deps: Dict[str, Optional[str]], path: str) -> bool:
        """Every question a cached result of ``path`` asked gets the same answer in this run."""
        return all(self.answer(*key[1:].partition(":")[::2], path) == value
                   for key, value in deps.items() if key.startswith(ASKED) and key != TREE_KEY)

    def answer(self, kind: str, argument: str, path: str) -> Optional[str]:
        """This run's answer to one recorded question (``?kind:argument``)."""
        if kind == "self":
            return os.path.abspath(path)
        if kind == "module":
            return self.names.get(os.path.abspath(path))
        if kind == "find":
            dotted, _, near = argument.partition("@")
            return self.find(dotted, near)
        if kind == "backend":
            return "1" if argument in self.backends else "0"
        if kind == "mixin":
            return "1" if self.is_mixin(argument) else "0"
        if kind == "vocal":
            return "1" if argument in self.vocal else "0"
        if kind == "heard":
            return "1" if argument in self.heard else "0"
        if kind == "runners":
            return "\n".join(self.runner_files())
        if kind == "heirs":
            return "\n".join(sorted(set(self.subclassed_in.get(argument, ()))))
        if kind == "builders":
            return "\n".join(self._built_names().get(argument, []))
        if kind == "handers":
            return "\n".join(self._calling(f"{argument}(self"))
        if kind == "spelled":
            return "\n".join(self._spelling(tuple(argument.split(","))))
        return ASKED  # a question this version does not know: never the recorded answer

    def find(self, dotted: str, near: str = "") -> Optional[str]:
        """The run's file for a module name: the longest matching suffix, nearest first."""
        key = (dotted, near)
        if key not in self._found:  # (asked ~10,000 times a run, of a few hundred names)
            self._found[key] = self._find(dotted, near)
        return self._found[key]

    def same_module(self, dotted: str, other: str, near: str = "") -> bool:
        """``dotted`` (as an import near ``near`` spells it) and ``other`` (as this index
        names it) are one module of the run, however each is spelled (``pkg.tables`` and
        ``t.pkg.tables`` where an ``__init__.py`` lies above the run); answers recorded."""
        if dotted == other:
            return True
        found = self.find(dotted, near)
        self._touch(f"{ASKED}find:{dotted}@{near}", found)
        return found is not None and self.names.get(found) == other

    def _find(self, dotted: str, near: str) -> Optional[str]:
        parts = dotted.split(".")
        for start in range(len(parts)):
            found = self.by_key.get(".".join(parts[start:]))
            if found:
                return max(found, key=lambda p: len(os.path.commonprefix([p, near])))
        return None

    def module(self, dotted: str, near: str = "", name: str = "",
               classes_only: bool = False) -> Optional[_Module]:
        """The run's module ``dotted``, parsed once; with ``name``, None unless it may bind
        that name (``_may_bind``: a module that cannot is not parsed to look), and with
        ``classes_only``, None when it binds it as a function (``_only_a_function``)."""
        path = self.find(dotted, near)
        self._touch(f"{ASKED}find:{dotted}@{near}", path)  # a module added later may answer
        return None if path is None else self.module_at(path, name, classes_only)

    def module_at(self, path: str, name: str = "", classes_only: bool = False) -> Optional[_Module]:
        """The run's module at ``path``, parsed once (``name``, ``classes_only``: ``module``)."""
        if path not in self._modules:
            if name and (not self._may_bind(path, name) or (
                    classes_only and self._only_a_function(path, name))):
                self._touch(path, self.digests[path])
                return None
            self._modules[path] = self._parse(path)
            self._spelled.pop(path, None)
        module = self._modules[path]
        self._touch(path, module.scope.digest if module is not None else None)
        return module

    def _parse(self, path: str) -> Optional[_Module]:
        from lint_rules.rules._facts import imported_names

        try:
            text = self._text(path)
            if len(text) > MAX_PARSED_CHARS:  # its own lint says so (KVP900)
                return None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = imported_names(ast.parse(text))
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError, LookupError,
                RecursionError, MemoryError):
            return None  # an unreadable module answers nothing; its own lint says why
        return self._module_of(path, tree, text)

    def _bytes(self, path: str) -> bytes:
        """What the run read at ``path`` (its digest recorded)."""
        data = self.contents.get(path)
        if data is None and self.given:  # refused by the run (too large, unreadable, gone: its
            raise OSError(errno.ENOENT, "not read by this run")  # error line says why), unread
        if data is None:  # a module outside the run's reading (a test builds the index alone)
            with open(path, "rb") as handle:
                data = handle.read()
            self.contents[path] = data
        if path not in self.digests:
            self.digests[path] = digest_bytes(data)
        return data

    def _text(self, path: str) -> str:
        data = self._bytes(path)
        encoding, _ = tokenize.detect_encoding(  # it reads two lines: the rest is not split
            iter(first_two_lines(data).splitlines(True)).__next__)
        return data.decode(encoding)

    def _module_of(self, path: str, tree: ast.AST, text: str) -> _Module:
        from lint_rules.rules._facts import ModuleScope, parsed_from

        parsed_from(tree, text)
        name = self.names.get(path, "")
        scope = ModuleScope(tree, self, name, path)
        scope.digest = self.digests.get(path)
        scope.builds = may_build(text, self.options)
        return _Module(path, name, tree, scope, text)

    # -- one parse per module and process: the engine and the index share trees ---------------
    def tree_of(self, path: str, source: str) -> Optional[ast.AST]:
        """The tree of ``path`` when the index parsed it from this very ``source``."""
        module = self._modules.get(os.path.abspath(path))
        return module.tree if module is not None and module.text == source else None

    def adopt(self, path: str, tree: ast.AST, source: str) -> None:
        """Keep the engine's tree of ``path`` for the summaries, when ``source`` is what the run
        read there (a fix's re-lint of new text is not the module other files see)."""
        path = os.path.abspath(path)
        if path not in self.names or path in self._modules:
            return
        try:
            if self._text(path) != source:
                return
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError, LookupError):
            return
        self._modules[path] = self._module_of(path, tree, source)

    def _touch(self, key: str, value: Optional[str]) -> None:
        """Record what the analyses now open read: a file's digest, or an answer (``ASKED``).
        It is written to the innermost one; each passes what it read on to the one it runs in
        when it ends (``_tracked``), so every open analysis holds it, in the same order."""
        self._open[-1][key] = value

    def _remembered(self, key: tuple, compute):
        """``compute()`` once per key; a later use still records the files it read."""
        if key in self._memo:
            value, deps = self._memo[key]
            if self._computing and key in self._computing:  # a cycle: what it sees depends on
                self._unfinished.add(self._computing[-1])  # the order summaries are built in
                self._not_repeatable(key)
            for path, digest in deps.items():
                self._touch(path, digest)
            return value
        self._memo[key] = (None, {})  # a cycle sees nothing
        value, deps, unfinished, _ = self._computed(key, compute)
        if unfinished:  # it read a summary still being built (a mixin asking its heirs): not
            del self._memo[key]  # kept, a later ask sees that summary whole
        else:
            self._memo[key] = (value, deps)
        return value

    def _computed(self, key: tuple, compute) -> tuple:
        """``(compute(), {path: digest} of what it read, whether it read a summary still
        being computed, whether a later computation repeats it)`` (``_tracked``)."""
        self._computing.append(key)
        try:
            value, deps, repeatable = self._tracked(compute, key)
        finally:
            self._computing.pop()
            unfinished = key in self._unfinished
            self._unfinished.discard(key)
        return value, deps, unfinished, repeatable

    def _tracked(self, compute, what) -> tuple:
        """``(compute(), {path: digest} of what it read, whether it is repeatable)``; the reads
        are also recorded as the open analyses' (``_touch``). Repeatable: it used no summary
        that was under way before it began (nor a value computed from one: the asker is under
        way then too), so whatever asks the same later, here or in a forked worker, computes
        the same value from the same remembered summaries and reads the same files. (One it
        began itself and reads again is a recursion of its own: any later run repeats it.)"""
        self._open.append({})
        self._frames.append([what, True])
        try:
            value = compute()
        finally:
            deps = self._open.pop()
            repeatable = self._frames.pop()[1]
            self._open[-1].update(deps)  # (also when it failed: what it read was read)
        return value, deps, repeatable

    def _not_repeatable(self, what=None) -> None:
        """The value of computation ``what``, still under way, was read: what it began since
        does not repeat (None: a value that depends on something under way: nothing does)."""
        begun = next((i for i in range(len(self._frames) - 1, -1, -1)
                      if what is not None and self._frames[i][0] == what), -1)
        for frame in self._frames[begun + 1:]:
            frame[1] = False

    def scope_computed(self, compute, what) -> tuple:
        """``(compute(), record)`` for what a module scope remembers (``what``: an object of
        one of its classes, a runner attribute): ``record`` is what ``scope_reused`` needs."""
        value, deps, repeatable = self._tracked(compute, what)
        return value, (deps, repeatable)

    def scope_reused(self, record: Optional[tuple], what) -> None:
        """A module scope's remembered value ``what`` is used again (``record``: None while it
        is still being computed): its reads count as this use's, and so does what made it
        unrepeatable."""
        if record is None:
            self._not_repeatable(what)
        elif not record[1]:
            self._not_repeatable()
        for path, digest in (record[0] if record is not None else {}).items():
            self._touch(path, digest)

    # -- a class's flow, run once for a summary and for its module's own analysis ---------------
    def run_flow(self, node: ast.ClassDef, inputs: tuple, run, relatives: tuple = ()) -> None:
        """``run()``: the flow of class ``node`` from ``inputs`` (each of its family's nodes,
        with its foreign bases' and heirs' summaries). Kept for ``kept_flow`` when it is repeatable
        (``_tracked``): any later analysis from the same inputs (the module's own, in a forked
        worker too) computes exactly this and reads the same files. The entries of the foreign
        summaries of ``relatives`` (its family's facts) that the flow reads are logged."""
        reads: Dict[tuple, set] = {}
        saved = [relative.foreign for relative in relatives]
        for i, relative in enumerate(relatives):
            relative.foreign = tuple(_logged(summary, reads, (i, j))
                                     for j, summary in enumerate(relative.foreign))
        try:
            facts, deps, _, repeatable = self._computed(("flow", object()), run)  # (one per run)
        finally:
            for relative, foreign in zip(relatives, saved):
                relative.foreign = foreign
        if repeatable:  # (a backend flows as itself and as its mixins see it: both kept)
            self._flows.setdefault(node, []).append((inputs, facts, deps, reads))

    def kept_flow(self, node: ast.ClassDef, inputs: tuple):
        """The class facts a summary's flow of ``node`` left when it ran from these very
        ``inputs``, or from inputs that differ only in foreign summary entries it never read
        (a heir's view and its full summary: mixins bare or whole); None: run it. What that
        flow read is recorded as read now."""
        kept = self._flows.get(node, ())
        found = next((entry for entry in kept if entry[0] == inputs), None) or next(
            (entry for entry in kept if _agrees(entry[0], inputs, entry[3])), None)
        if found is None:
            return None
        for path, digest in found[2].items():
            self._touch(path, digest)
        return found[1]

    def _split(self, qualified: str, scope, hops: int = 0, classes_only: bool = False,
               tables: bool = False):
        """``(module, name)`` defining ``pkg.mod.name``, following re-exports (``classes_only``:
        None where a function defines it, whenever that is clear without parsing; ``tables``:
        also a module table of functions, ``PROBES = {"a": f}``)."""
        dotted, _, name = qualified.rpartition(".")
        if not dotted or hops > MAX_HOPS:
            return None
        module = self.module(dotted, getattr(scope, "path", ""), name, classes_only)
        if module is None:  # pkg.mod.alias.f: a module another module imports (or binds)
            holder = self._split_module(dotted, scope, hops)
            return self._split(f"{holder}.{name}", scope, hops + 1, classes_only, tables) if (
                holder) else None
        if name in module.scope.functions or name in module.scope.classes or (
                tables and name in module.scope.tables):
            return module, name
        scope = module.scope
        targets = [scope.imports[name], *scope.alternatives.get(name, ())] if (
            name in scope.imports) else [scope._aliased(name) if name in scope.bound else (
                self.star_export(scope, name, hops))]
        return next((found for target in targets if target is not None
                     for found in [self._split(target, scope, hops + 1, classes_only, tables)]
                     if found),
                    None)

    def _split_module(self, dotted: str, scope, hops: int) -> Optional[str]:
        """The module ``pkg.mod.alias`` names when ``alias`` is a module ``pkg.mod`` imports
        (``import other as alias``) or binds (``alias = gf.other``); None otherwise."""
        parent, _, attr = dotted.rpartition(".")
        if not parent or hops > MAX_HOPS:
            return None
        module = self.module(parent, getattr(scope, "path", ""), attr)
        if module is None:
            return None
        target = module.scope.imports.get(attr) or (
            module.scope._aliased(attr) if attr in module.scope.bound else None)
        return target if target and target != dotted else None

    def function_table(self, qualified: str) -> Optional[tuple]:
        """``(scope, display)`` of module table ``pkg.mod.NAME`` (``ModuleScope.tables``)."""
        found = self._split(qualified, None, tables=True)
        if found is None or found[1] not in found[0].scope.tables:
            return None
        return found[0].scope, found[0].scope.tables[found[1]]

    def record_class(self, qualified: str) -> Optional[Tuple[_Module, str]]:
        """``(module, name)`` defining ``pkg.mod.C`` when it is a record class (``_split``)."""
        found = self._split(qualified, None, classes_only=True)
        return found if found is not None and found[1] in found[0].scope.records else None

    def _function(self, qualified: str) -> Optional[Tuple[_Module, str]]:
        """``(module, name)`` defining ``pkg.mod.f`` when it is a module function (``_split``)."""
        found = self._split(qualified, None)
        return found if found is not None and found[1] in found[0].scope.functions else None

    def function_def(self, qualified: str) -> Optional[tuple]:
        """``(def, scope)`` of module function ``pkg.mod.f`` and of the module defining it
        (None: not one of the package)."""
        found = self._function(qualified)
        return (found[0].scope.functions[found[1]], found[0].scope) if found is not None else None

    def function_globals_read(self, qualified: str) -> Optional[Tuple[str, frozenset]]:
        """``(module, names)``: the dotted module defining function ``pkg.mod.f`` and the
        module globals of it that ``f`` reads; None for anything but such a function."""
        found = self._function(qualified)
        if found is None:
            return None
        module, name = found
        known = module.scope.globals
        read = frozenset(node.id for node in nodes_under(module.scope.functions[name])
                         if type(node) is ast.Name and node.id in known
                         and type(node.ctx) is ast.Load)
        return (module.name, read) if read else None

    def is_resolver(self, qualified: str) -> bool:
        """``pkg.mod.f`` is a module function of the package that asks the allocator."""
        found = self._function(qualified)
        return found is not None and found[0].scope.is_resolver(found[1])

    def _may_bind(self, path: str, name: str) -> bool:
        """Whether the module at ``path`` may bind ``name``: a def, a class or an import binds
        it only where its text spells it, or through ``import *``. A text that does neither
        need not be parsed to look (a vendored suffix match: ``torch.cuda.X`` finds some
        ``cuda.py``). Only an ASCII text is trusted so: a non-ASCII identifier may normalise
        (NFKC) to ``name``; a text that does not decode is left to the parse to refuse. Each
        text is read once (a module is asked for many names, and again for each call)."""
        if path not in self._spelled:
            try:
                text: Optional[str] = self._text(path)
            except (OSError, SyntaxError, ValueError, UnicodeDecodeError, LookupError):
                text = None
            if text is not None and (not text.isascii() or STAR_TEXT.search(text)):
                text = None
            self._spelled[path] = text
        text = self._spelled[path]
        return text is None or name in text

    def _only_a_function(self, path: str, name: str) -> bool:
        """Whether the module at ``path`` defines ``name`` by a ``def`` at its top level (a
        line that begins ``def name``) and never as a class or a record (no class statement
        of that name, no ``namedtuple``/``make_dataclass``): ``_split`` would find the function
        first, so a question about a class (is it a record, a factory, a summary) is answered
        no without parsing the module (most calls name functions: ``is_cuda()``)."""
        try:
            data = self._bytes(path)
        except OSError:
            return False  # unread: parsed (and refused) as any other module
        if b"namedtuple" in data or b"make_dataclass" in data or any(
                defined == name for defined, _ in self.headers.get(path, ())):
            return False
        if not WORD.fullmatch(name):  # a non-ASCII name: only the search spells it alike
            return re.search(rb"^(?:async[ \t]+)?def[ \t]+%s\b" % name.encode(), data,
                             re.MULTILINE) is not None
        defined = self._top_defs.get(path)
        if defined is None:  # each module's top-level def names, found in one pass
            defined = self._top_defs[path] = frozenset(TOP_DEF.findall(data))
        return name.encode() in defined

    def first_defined(self, targets: List[str], scope) -> str:
        """The first of a conditionally imported name's ``targets`` that the package defines
        (else the first: the module's last binding of it)."""
        return next((t for t in targets if self._split(t, scope) is not None), targets[0])

    def star_export(self, scope, name: str, hops: int = 0) -> Optional[str]:
        """``pkg.mod.name`` for a name module ``scope`` binds only through ``from pkg.mod import
        *`` (the last such module exporting it wins, as at run time; ``__all__`` or, without
        one, every public name is exported); None when none of the package's does."""
        if hops > MAX_HOPS:
            return None
        for base in reversed(scope.stars):
            if not self._may_export(base, name, getattr(scope, "path", "")):
                continue
            module = self.module(base, near=getattr(scope, "path", ""))
            if module is None:
                continue
            exports = module.scope.exports
            if name not in exports if exports is not None else name.startswith("_"):
                continue
            if name in module.scope.globals:
                return f"{base}.{name}"
            found = self.star_export(module.scope, name, hops + 1)
            if found is not None:
                return found
        return None

    def _may_export(self, dotted: str, name: str, near: str) -> bool:
        """Whether the text of module ``dotted`` names ``name`` or star-imports (else it cannot
        export it, and it is not parsed); its digest is recorded either way."""
        path = self.find(dotted, near)
        self._touch(f"{ASKED}find:{dotted}@{near}", path)
        if path is None:
            return False
        try:
            data = self._bytes(path)
        except OSError:
            return False
        self._touch(path, self.digests[path])
        return name.encode() in data or STAR_IMPORT.search(data) is not None

    # -- what _facts asks -------------------------------------------------------------------------
    def _class_module(self, qualified: str) -> Optional[tuple]:
        """``(module, "C")`` for class ``pkg.mod.C`` of the package; None when unknown."""
        found = self._split(qualified, None, classes_only=True)
        if found is None or found[1] not in found[0].scope.classes:
            return None
        return found

    def class_home(self, qualified: str) -> Optional[tuple]:
        """``(class statement, scope)`` of class ``pkg.mod.C`` and of the module defining it
        (None: not one of the package), as ``function_def`` gives a function's."""
        found = self._class_module(qualified)
        return None if found is None else (found[0].scope.classes[found[1]], found[0].scope)

    def class_def(self, qualified: str) -> Optional[ast.ClassDef]:
        """The class statement of ``pkg.mod.C``; None when unknown."""
        found = self._class_module(qualified)
        return None if found is None else found[0].scope.classes[found[1]]

    def method_def(self, qualified: str, method: str) -> Optional[ast.AST]:
        """The def of method ``method`` in class ``pkg.mod.C`` (an inherited helper: run with
        the caller's arguments on the caller's ``self``); None when unknown."""
        node = self.class_def(qualified)
        return None if node is None else next((s for s in node.body if isinstance(
            s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == method), None)

    def heir_defs(self, name: str, method: str, path: str) -> List[ast.AST]:
        """The defs of ``method`` in the subclasses of class ``name`` (of ``path``) that other
        modules of the package define: what ``self.<method>()`` in that class's code runs on
        their objects (a template method's hook)."""
        self._touch(f"{ASKED}heirs:{name}", self.answer("heirs", name, ""))
        here, found = os.path.abspath(path), []
        for heir in sorted(set(self.subclassed_in.get(name, ()))):
            if heir == here:
                continue
            for sub, bases in self.headers.get(heir, ()):
                if name in bases:
                    function = self.method_def(f"{self.names.get(heir, '')}.{sub}", method)
                    if function is not None:
                        found.append(function)
        return found

    def function_returns(self, qualified: str, arguments: Tuple[Taint, ...],
                         keywords: tuple = ()) -> Optional[Taint]:
        """What ``pkg.mod.f(...)`` returns for arguments (and ``(name, taint)`` keyword
        arguments) holding these taints (None: unknown)."""
        found = self.function_effects(qualified, arguments, keywords)
        return found[0] if found is not None else None

    def function_effects(self, qualified: str, arguments: Tuple[Taint, ...],
                         keywords: tuple = (), given_self: Tuple[int, ...] = ()
                         ) -> Optional[tuple]:
        """``(returned, fields, globals, handed)`` of ``pkg.mod.f(...)`` or of a factory
        ``pkg.mod.C.of(...)`` (a classmethod or staticmethod): what it returns, what each field
        of the record it builds holds, the module globals it stores into (``global X``
        there, a module table it fills): ``(name, taint, under)``, each named as
        ``global_name`` names it, and its stores on objects its arguments hold: ``(position,
        path, taint)`` (None: unknown). The arguments at ``given_self`` are the
        backend itself: a function reads its pool as the backend's own method would
        (``_installed.given_self``)."""
        from lint_rules.rules._facts import module_function_effects

        found = self._function(qualified) or self._factory(qualified)
        if found is None:
            return None
        module, name = found
        # keyed by the defining file, not the spelling: one function under two import paths
        # (a vendored copy's suffix, a re-export) is analysed once
        return self._remembered(
            ("function", module.path, name, arguments, keywords, given_self),
            lambda: module_function_effects(module.scope, name, arguments, self.options,
                                            keywords, given_self))

    def global_name(self, qualified: str, near: str = "") -> Optional[str]:
        """``pkg.mod.X`` (a module global as an importer spells it) named by its module as
        this index names it, so every importer and the module itself agree; None when the
        package has no such module."""
        dotted, _, name = qualified.rpartition(".")
        path = self.find(dotted, near) if dotted else None
        self._touch(f"{ASKED}find:{dotted}@{near}", path)
        return f"{self.names[path]}.{name}" if path is not None else None

    def reads_pool(self, qualified: str) -> bool:
        """Whether function (or factory) ``pkg.mod.f`` is defined in a module whose text names
        the active pool: one handed the backend itself may read its pool there
        (``attn_backend.token_to_kv_pool``), and is then followed as if handed the pool."""
        found = self._function(qualified) or self._factory(qualified)
        return found is not None and ACTIVE_POOL in found[0].text

    def _factory(self, qualified: str) -> Optional[tuple]:
        """``(module, "C.of")`` for the classmethod or staticmethod ``of`` of class ``C``."""
        from lint_rules.rules._facts import factory_method

        owner, _, method = qualified.rpartition(".")
        found = self._class_module(owner) if owner else None
        if found is None or factory_method(found[0].scope.classes[found[1]], method) is None:
            return None
        return found[0], f"{found[1]}.{method}"

    def instance(self, qualified: str, arguments: tuple, keywords: tuple, called: str = ""):
        """What an object of class ``pkg.mod.C`` holds once built with arguments holding these
        taints (``called``: once that method of it is called with them; ``_facts.Instance``;
        None: unknown)."""
        from lint_rules.rules._facts import instance_summary

        found = self._class_module(qualified)
        if found is None:
            return None
        module, name = found
        key = ("instance", module.path, name, arguments, keywords)
        return self._remembered(  # by the defining file, as function_returns
            key + (called,) if called else key,
            lambda: instance_summary(module.scope, name, arguments, keywords, self.options,
                                     called))

    def class_summary(self, qualified: str) -> Optional[ClassSummary]:
        """Class ``pkg.mod.C`` as its subclasses see it (None: unknown)."""
        return self._summary(qualified, "")

    def heir_view(self, qualified: str) -> Optional[tuple]:
        """``(own, bases)``: backend ``pkg.mod.C`` as the mixins it inherits see it, its own
        summary and its foreign bases', each mixin bare (``bare_summary``). A mixin's summary
        asks its heirs', a heir's its mixins': bare mixins end that cycle at one step, the same
        whichever member a run reaches first, and the heir flows once for all its mixins."""
        return self._summary(qualified, "heir")

    def sibling_summary(self, qualified: str) -> Optional[ClassSummary]:
        """Mixin ``pkg.mod.C`` as another mixin of its heirs sees it: its heirs asked, each
        with its mixins bare (``subclass_summaries``' ``siblings_bare``)."""
        return self._summary(qualified, "sibling")

    def bare_summary(self, qualified: str) -> Optional[ClassSummary]:
        """Mixin ``pkg.mod.C`` as a heir's other mixins see it: its heirs not asked."""
        return self._summary(qualified, "bare")

    def _summary(self, qualified: str, view: str):
        from lint_rules.rules._facts import summarise_class

        found = self._class_module(qualified)
        if found is None:
            return None
        module, name = found
        return self._remembered(  # by the defining file, as function_returns
            (view or "class", module.path, name),
            lambda: summarise_class(module.tree, module.scope, name, self.options, view))

    def runner_attr(self, attr: str, near: str = "") -> Taint:
        """What ``<runner>.<attr>`` holds when a runner class of another module builds it from
        its own pool (``_facts.runner_built``). Only files whose text may bind ``attr`` are
        parsed; every runner file's digest is recorded, so one that starts binding it counts."""
        return self._remembered(("runner", attr), lambda: self._runner_attr(attr, near))

    def _runner_attr(self, attr: str, near: str) -> Taint:
        from lint_rules.rules._facts import runner_built

        bits = CLEAN
        self._touch(f"{ASKED}runners:", self.answer("runners", "", ""))
        here = os.path.abspath(near or "")
        for path in self.runner_files():
            bound = self._runner_binds(path)
            if path == here or bound is None or attr not in bound:
                continue  # (the file asking answered for its own classes)
            module = self.module_at(path)
            if module is not None:
                for name, _ in self.headers.get(path, ()):
                    if name.endswith(RUNNER_SUFFIX):
                        bits |= runner_built(module.scope, name, attr, self.options)
        return bits

    def _runner_binds(self, path: str) -> Optional[frozenset]:
        """``pool_stores`` of a runner file (read once per process: a backend asks about many
        runner attributes, and a file none of whose stores names the pool is never parsed)."""
        if path not in self._binds:
            try:
                data = self._bytes(path)
            except OSError:
                self._binds[path] = None
            else:
                self._binds[path] = pool_stores(data)
        if self._binds[path] is not None:
            self._touch(path, self.digests[path])
        return self._binds[path]

    def runner_files(self) -> List[str]:
        """The run's files defining a runner class (by name, from the class graph)."""
        if self._runners is None:
            self._runners = sorted(path for path, rows in self.headers.items()
                                   if any(name.endswith(RUNNER_SUFFIX) for name, _ in rows))
        return self._runners

    def foreign_bases(self, scope, node: ast.ClassDef, bare_mixins: bool = False) -> tuple:
        """Summaries of ``node``'s bases defined in other modules of the package (with
        ``bare_mixins``, those of the package's mixins bare: ``bare_summary``)."""
        found = []
        for base in node.bases:
            qualified = scope.qualified(base)
            bare = bare_mixins and last_name(base) in self.mixins
            summary = None if not qualified else (
                self.bare_summary(qualified) if bare else self.class_summary(qualified))
            if summary is not None:
                found.append(summary)
        return tuple(found)

    def backend_names(self, scope) -> frozenset:
        """Base names this module's classes use that are attention backends of the package
        (from the class graph: no module is analysed to answer)."""
        return frozenset(
            last_name(base) for node in scope.class_nodes
            for base in node.bases if self._is_backend(last_name(base))
        )

    def is_backend_name(self, name: str) -> bool:
        """Whether class ``name`` is one of the package's attention backends (recorded)."""
        return self._is_backend(name)

    # -- builders: functions keeping state on a backend they built or were handed -------------
    def _built_names(self) -> Dict[str, List[str]]:
        """``{name: files}``: every word ending ``Backend`` the run's files spell (where a
        builder of that backend class, or one handed it, can be), found once: a literal
        search per file, and a look back over the name at each hit."""
        if self._built is None:
            found: Dict[str, List[str]] = {}
            for path in sorted(self.names):
                try:
                    data = self._bytes(path)
                except OSError:
                    continue
                index = data.find(BACKEND_WORD)
                while index >= 0:
                    end = index + len(BACKEND_WORD)
                    if data[end:end + 1] not in WORD_ENDS:  # (``XBackendBase``: another word)
                        start = index
                        while start and (data[start - 1] in WORD_BYTES):
                            start -= 1
                        name = data[start:end].decode("ascii", "replace")
                        paths = found.setdefault(name, [])
                        if not paths or paths[-1] != path:
                            paths.append(path)
                    index = data.find(BACKEND_WORD, end)
            self._built = found
        return self._built

    def _calling(self, needle: str) -> List[str]:
        """The files defining a package backend or mixin (from the class graph) whose bytes
        hold ``needle`` (each needle searched once)."""
        if needle not in self._needles:
            wanted, found = needle.encode("utf-8", "surrogatepass"), []
            for path in sorted(p for p, rows in self.headers.items() if any(
                    name in self.backends or frozenset.__contains__(self.mixins, name)
                    for name, _ in rows)):
                try:
                    if wanted in self._bytes(path):
                        found.append(path)
                except OSError:
                    continue
            self._needles[needle] = found
        return self._needles[needle]

    def builder_summaries(self, scope, name: str) -> tuple:
        """What functions of other modules keep on a backend of class ``name`` of ``scope`` they
        built (``backend = Klass(runner); backend.flag = isinstance(...)``: registry creators):
        per module, one ``ClassSummary`` of those stores (``_facts.summarise_builders``). Only
        a class named with ``Backend`` or a configured base is looked for (by its name and an
        opening parenthesis in the text)."""
        if not name.endswith(BACKEND_SUFFIX):
            return ()
        from lint_rules.rules._facts import summarise_builders

        here = os.path.abspath(getattr(scope, "path", "") or "")
        paths = self._built_names().get(name, [])
        self._touch(f"{ASKED}builders:{name}", "\n".join(paths))
        qualified, found = f"{scope.module}.{name}", []
        for path in paths:
            if path == here:
                continue
            self._touch(path, self.digests.get(path))
            module = self.module_at(path) if self._may_build(path) and (
                self._builds_class(path, name)) else None
            if module is not None:
                found.extend(self._remembered(
                    ("builders", path, qualified),
                    lambda: summarise_builders(module.scope, qualified, self.options)))
        return tuple(found)

    def _builds_class(self, path: str, name: str) -> bool:
        """The bytes of ``path`` call class ``name`` or annotate with it (``: "XBackend"``)."""
        try:
            data = self._bytes(path)
        except OSError:
            return False
        word = name.encode()
        index = data.find(word)
        while index >= 0:
            end = index + len(word)
            if data[end:end + 1] == b"(":
                return True
            at = index
            while at and (data[at - 1] in WORD_BYTES or data[at - 1] in b".'\" \t"):
                at -= 1
            if data[end:end + 1] not in WORD_ENDS and data[at - 1:at] == b":":
                return True
            index = data.find(word, end)
        return False

    def _vocal_text(self, path: str) -> bool:
        """The text of ``path`` names the rules' vocabulary (``_vocab.mentions_vocabulary``)."""
        try:
            return mentions_vocabulary(self._text(path), self.options)
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError, LookupError):
            return False

    def _may_build(self, path: str) -> bool:
        """The text of ``path`` may hold a builder tied to its backend class (``_vocab.
        may_build``, a handed backend only by an annotation): parsed only then."""
        if path not in self._builds:
            module = self._modules.get(path)
            try:
                self._builds[path] = may_build(
                    module.text if module is not None else self._text(path), self.options,
                    handed=False)
            except (OSError, SyntaxError, ValueError, UnicodeDecodeError, LookupError):
                self._builds[path] = False
        return self._builds[path] is not False

    def hands_self_to(self, qualified: str, name: str) -> bool:
        """Whether a backend class of another module of the package hands ``self`` to the
        function ``qualified`` (``name(self, ...)``, ``mod.name(self, ...)``): that call is
        where what it keeps is reported (``_installed.foreign_helpers``)."""
        paths = self._calling(f"{name}(self")
        self._touch(f"{ASKED}handers:{name}", "\n".join(paths))
        here = self.find(qualified.rpartition(".")[0])
        for path in paths:  # (a backend is analysed only where its text names the vocabulary)
            if path != here and path in self.digests:  # (its text decides: a dependency)
                self._touch(path, self.digests[path])
            module = self.module_at(path) if path != here and self._vocal_text(path) else None
            scope = module.scope if module is not None else None
            if scope is not None and any(
                    type(node) is ast.Call and node.args and any(
                        type(a) is ast.Name and a.id == "self" for a in node.args)
                    and scope.qualified(node.func) == qualified
                    for klass in scope.class_nodes for node in nodes_under(klass)):
                return True
        return False

    def _is_backend(self, name: str) -> bool:
        found = name in self.backends
        self._touch(f"{ASKED}backend:{name}", "1" if found else "0")
        return found


HUB_HEIRS = 8  # heirs by name (``_heirs``) above which a base ties no family (``families``)
_WHOLE = ("whole",)  # a summary table read otherwise than by key


class _LoggedTable(dict):
    """A foreign summary's table during a flow (``run_flow``): the keys read are logged; any
    other use (iteration, length, comparison, copy) logs the table as read whole."""

    def __init__(self, table: dict, log: set) -> None:
        super().__init__(table)
        self.log = log

    def get(self, key, default=None):
        self.log.add(key)
        return super().get(key, default)

    def __contains__(self, key) -> bool:
        self.log.add(key)
        return super().__contains__(key)

    def __getitem__(self, key):
        self.log.add(key)
        return super().__getitem__(key)


def _whole(name: str):
    def read(self, *args, **kwargs):
        self.log.add(_WHOLE)
        return getattr(dict, name)(self, *args, **kwargs)
    read.__name__ = name
    return read


for _name in ("__iter__", "__len__", "__eq__", "__ne__", "__or__", "__ror__", "__reversed__",
              "__repr__", "__reduce__", "__reduce_ex__", "keys", "values", "items", "copy"):
    setattr(_LoggedTable, _name, _whole(_name))

SUMMARY_TABLES = ("stores", "properties", "returns", "fields", "calls")


def _logged(summary: ClassSummary, reads: Dict[tuple, set], where: tuple) -> ClassSummary:
    """``summary`` with each table logging the keys read into ``reads[(*where, table)]``."""
    tables = {name: _LoggedTable(getattr(summary, name), reads.setdefault((*where, name), set()))
              for name in SUMMARY_TABLES}
    return ClassSummary(summary.name, summary.backend, flags=summary.flags,
                        decided=summary.decided, resolvers=summary.resolvers, **tables)


def _agrees(ran: tuple, inputs: tuple, reads: Dict[tuple, set]) -> bool:
    """Whether a flow from ``ran`` computes what one from ``inputs`` would: the same nodes and
    heirs, and foreign summaries equal but in table entries the flow never read (``reads``)."""
    if len(ran) != len(inputs):
        return False
    for i, ((node, foreign, heirs), (other, others, heirs_now)) in enumerate(zip(ran, inputs)):
        if node is not other or heirs != heirs_now or len(foreign) != len(others):
            return False
        for j, (was, now) in enumerate(zip(foreign, others)):
            if was == now:
                continue
            if (was.name, was.backend, was.flags, was.decided) != (
                    now.name, now.backend, now.flags, now.decided):
                return False
            for name in SUMMARY_TABLES:
                read = reads.get((i, j, name), {_WHOLE})
                old, new = getattr(was, name), getattr(now, name)
                if _WHOLE in read or any(old.get(k, _WHOLE) != new.get(k, _WHOLE) for k in read):
                    return False
    return True


def _heirs(headers) -> Dict[str, List[str]]:
    """Base name -> the names of the classes that list it, in any file."""
    heirs: Dict[str, List[str]] = {}
    for rows in headers:
        for name, bases in rows:
            for base in bases:
                heirs.setdefault(base, []).append(name)
    return heirs


def _closure(seeds: Iterable[str], heirs: Dict[str, List[str]], never=frozenset()) -> set:
    """The classes named ``seeds`` and their heirs at any depth, by name, none of ``never``."""
    found, todo = set(), [name for name in seeds if name not in never]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(heir for heir in heirs.get(name, ()) if heir not in never)
    return found


def pool_stores(data: bytes) -> frozenset:
    """Names ``data`` assigns as ``self.<name> = ...`` in a statement whose text (its line, and
    the more indented or backslash-continued lines after it) names the pool or a name some line
    binds from it: a text superset of the stores ``_facts.runner_built`` accepts (a call whose
    arguments sit less indented than the statement is not followed)."""
    pool = ACTIVE_POOL.encode()
    if pool not in data:
        return frozenset()
    words = {pool, *_pool_binders(data, pool)}
    lines, found = data.splitlines(), set()
    indents = [len(line) - len(line.lstrip()) for line in lines]
    # a statement runs to the first later line at most as indented that is neither blank nor
    # continues a backslash: every such line's own end is found from the next such line on,
    # jumping over what it ends (walking and joining each statement's lines was quadratic in
    # a deeply nested runner file: 4.5 MB took 27 s)
    stops = [not (index and lines[index - 1].rstrip().endswith(b"\\") or not line.strip())
             for index, line in enumerate(lines)]
    ends, after, memo = [len(lines)] * len(lines), len(lines), {}
    for index in range(len(lines) - 1, -1, -1):
        if stops[index] or SELF_STORE.search(lines[index]):
            key = (after, indents[index])
            if key not in memo:  # (lines between two stops share their walk)
                end = after
                while end < len(lines) and indents[end] > indents[index]:
                    end = ends[end]
                memo[key] = end
            ends[index] = memo[key]
        if stops[index]:
            after = index
    named = list(itertools.accumulate((any(word in line for word in words) for line in lines),
                                      initial=0))  # words hold no line break: line by line
    for index, line in enumerate(lines):
        names = SELF_STORE.findall(line)
        if names and named[ends[index]] > named[index]:
            found.update(name.decode() for name in names)
    return frozenset(found)


def _pool_binders(data: bytes, pool: bytes) -> list:
    r"""The names bound from the pool, ``re.findall(rb"(\w+)\s*=[^=\n][^\n]*" + pool, data)``,
    searched only where such a match can lie: a line naming the pool, from the last non-blank
    line before it (a name on it may be followed by blank lines and a line starting with the
    ``=``); a big runner file is otherwise scanned word by word. Overlapping windows are
    searched as one, so what is found is what the search of the whole text finds."""
    lines, spans, last = data.split(b"\n"), [], 0  # last: the last non-blank line so far
    for index, line in enumerate(lines):
        if pool in line:
            if spans and last <= spans[-1][1] + 1:
                spans[-1][1] = index
            else:
                spans.append([last, index])
        if line.strip():
            last = index
    return [name for start, end in spans for name in _bound_from(lines[start:end + 1], pool)]


_ASSIGNED = re.compile(rb"(?<!\w)(\w+)\s*=(?=[^=\n])")  # a name, '=' and not '=='


def _bound_from(window: list, pool: bytes) -> list:
    """``_pool_binders``' findall on the lines ``window`` in one pass: an ``=`` binds when its
    line names the pool after the character that follows it (the regex scanned the rest of
    the line for each candidate: a 64 kB line of 'a=b;' took 2 s, 40 kB of one word 27 s).
    A name starts a word, as it does wherever the regex found one."""
    text = b"\n".join(window)
    starts = list(itertools.accumulate((len(line) + 1 for line in window[:-1]), initial=0))
    lasts = [line.rfind(pool) for line in window]  # the line's last naming of the pool
    found, resume = [], 0
    for match in _ASSIGNED.finditer(text):
        if match.start() < resume:
            continue  # inside the last match (the regex's matches do not overlap)
        equals = match.end() - 1
        row = bisect.bisect_right(starts, equals) - 1
        if lasts[row] >= 0 and starts[row] + lasts[row] >= equals + 2:
            found.append(match[1])
            resume = starts[row] + lasts[row] + len(pool)
    return found


def _binding(attrs: Iterable[str], others_only: bool = False):
    """A test of text that may bind one of ``attrs``: ``.attr =`` (annotated, augmented, first
    of a tuple), ``attr =`` at the start of a line (a class attribute), ``del ... attr``, or
    the name as a string (``setattr``, ``__dict__``). Reads (``if self.attr:``, ``==``) do not
    count. It answers as one regex search of those forms would, in one pass: such a regex
    scanned the rest of the line for every '.attr,' and every 'del' (a long line took minutes).
    ``others_only``: a store on ``self`` does not count (a module the heirs import: its own
    classes' writes of a flag are their own, and a base's reach the property's setter)."""
    names = sorted((re.escape(attr.encode()) for attr in attrs), key=len, reverse=True)
    name = b"(?:%s)" % b"|".join(names)  # the longest first: '.a_b' is not '.a' then '_b'
    dotted = re.compile(rb"\.%s\s*(?=[,:=%s])" % (name, re.escape(_AUGMENTING)))
    rest = re.compile(rb"^[ \t]*%s\s*(?::[^=\n]*)?=(?!=)|[\x27\x22]%s[\x27\x22]" % (name, name)
                      + (b"" if others_only else rb"|^[ \t]*%s[ \t]*:(?!=)|%s" % (name, _DYNAMIC)),
                      re.M)  # (a heir: a bare field, ``x: bool``, and any write by a computed
    # name, ``setattr(self, k, v)``, ``self.__dict__.update(...)``, may bind it too)
    named = re.compile(rb"\b%s\b" % name)

    def binds(data: bytes) -> bool:
        if rest.search(data):
            return True
        lines = _Lines(data)
        for match in dotted.finditer(data):
            at = match.end()
            if others_only and data[max(0, match.start() - 4):match.start()] == b"self":
                continue
            if data[at:at + 1] in (b",", b":"):  # then an '=' on the line (after ':' the first)
                equals = lines.next_equals(at)
                if equals is not None and (data[at:at + 1] == b"," or data[
                        equals + 1:equals + 2] != b"="):
                    return True
            elif data[at:at + 1] == b"=" or data[at + 1:at + 2] == b"=":  # '=' or 'op='
                if data[at + 1 + (data[at:at + 1] != b"="):][:1] != b"=":
                    return True
        checked = -1  # the first 'del' of a line decides for the line
        for match in _DELETE.finditer(data):
            if match.start() > checked:
                checked = lines.end(match.start())
                if named.search(data, match.end(), checked):
                    return True
        return False

    return binds


# calls that bind their keyword arguments as attributes of an object they are handed (a
# keyword to any other call is a parameter of that function, which binds what it stores)
_KEYWORD_BINDERS = frozenset({"replace", "update", "dict", "SimpleNamespace"})


def _binds_spelled(tree: ast.AST, attrs: frozenset, related: frozenset,
                   ours: frozenset, tied: bool = True) -> bool:
    """``tree`` spells one of ``attrs`` where it may bind it on an object of the classes
    ``ours`` (``PackageIndex._spelled_binding``): a class of ``related`` binding it on its
    own objects counts, unless it is a class of the same name as one of ``ours`` (its own),
    or reaches ``ours`` through a base the module defines itself (it inherits that one)."""
    defined = {n.name for n in ast.walk(tree) if type(n) is ast.ClassDef}
    read = {id(n.args[1]) for n in ast.walk(tree) if type(n) is ast.Call and type(
        n.func) is ast.Name and n.func.id in ("getattr", "hasattr") and len(n.args) > 1}

    def counted(cls: Optional[ast.ClassDef]) -> bool:  # (a class's own objects: if tied)
        return tied and cls is not None and cls.name in related and (
            cls.name not in ours) and not any(
            type(b) is ast.Name and b.id in ours and b.id in defined for b in cls.bases)

    todo = [(tree, None, None, False)]  # (node, its class, its method's object, in its body)
    while todo:
        node, cls, receiver, body = todo.pop()
        for child in ast.iter_child_nodes(node):
            kind = type(child)
            if kind is ast.ClassDef:
                todo.append((child, child, None, True))
                continue
            if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
                positional = [*child.args.posonlyargs, *child.args.args]
                own = positional[0].arg if body and positional else receiver  # (a nested
                todo.append((child, cls, own, False))  # function reads its method's object)
                continue
            if kind is ast.Attribute and child.attr in attrs and type(child.ctx) is not ast.Load:
                own = type(child.value) is ast.Name and child.value.id == receiver
                if not own or counted(cls):
                    return True
            elif kind is ast.Name and child.id in attrs and type(child.ctx) is not ast.Load:
                if body and counted(cls):  # a class attribute (a local binds none)
                    return True
            elif kind is ast.keyword and child.arg in attrs and type(node) is ast.Call and (
                    last_name(node.func) in _KEYWORD_BINDERS):  # (a mapping of it too)
                return True  # replace(backend, flag=...), vars(backend).update(flag=...)
            elif kind is ast.Constant and type(child.value) is str and child.value in attrs \
                    and id(child) not in read:
                return True
            todo.append((child, cls, receiver, body))
    return False


_IMPORTED = re.compile(rb"^[ \t]*(?:from[ \t]+\.*([\w.]+)[ \t]+import|import[ \t]+([\w.]+))", re.M)


def _imported_modules(data: bytes) -> List[str]:
    """The dotted names a module's import lines name (``from .mix import A``: ``mix``)."""
    return [(first or second).decode("ascii", "replace")
            for first, second in _IMPORTED.findall(data)]


_AUGMENTING = b"-+*/|&^%@"
_DYNAMIC = rb"__dict__|\bsetattr[ \t]*\(|\bvars[ \t]*\("
_DELETE = re.compile(rb"\bdel\b")


class _Lines:
    """Where a text's lines end and its '=' are, found once (each asked with a bisection)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._ends = self._equals = None

    def end(self, at: int) -> int:
        """The end of the line holding ``at`` (its newline, or the end of the text)."""
        if self._ends is None:
            self._ends = [m.start() for m in re.finditer(rb"\n", self.data)]
        index = bisect.bisect_left(self._ends, at)
        return self._ends[index] if index < len(self._ends) else len(self.data)

    def next_equals(self, at: int) -> Optional[int]:
        """The first '=' after ``at`` on its line, or None."""
        if self._equals is None:
            self._equals = [m.start() for m in re.finditer(rb"=", self.data)]
        index = bisect.bisect_left(self._equals, at)
        if index < len(self._equals) and self._equals[index] < self.end(at):
            return self._equals[index]
        return None


class _Asked(frozenset):
    """Class names whose every membership test is recorded (``?kind:name`` -> "1" or "0") as
    a question the analysis asked, wherever the test is made."""

    def __new__(cls, names, kind: str, touch):
        self = super().__new__(cls, names)
        self.kind, self.touch = kind, touch
        return self

    def __contains__(self, name) -> bool:
        found = frozenset.__contains__(self, name)
        self.touch(f"{ASKED}{self.kind}:{name}", "1" if found else "0")
        return found

    def __reduce__(self):  # a spawned worker gets the plain set (recording is per process)
        return frozenset, (frozenset(self),)


def merged(summaries: Iterable[ClassSummary], name: str, backend: bool) -> ClassSummary:
    """One summary for a class from its own and its bases' (own entries win)."""
    stores: Dict[str, Taint] = {}
    fields: Dict[str, Taint] = {}
    properties: Dict[str, Taint] = {}
    returns: Dict[str, Taint] = {}
    flags: set = set()
    decided: set = set()
    resolvers: set = set()
    calls: Dict[str, Dict[str, Taint]] = {}
    for summary in summaries:
        for method, passed in summary.calls.items():
            mine = calls.setdefault(method, {})
            for key, value in passed.items():
                mine[key] = mine.get(key, CLEAN) | value
        for table, mine in ((summary.stores, stores), (summary.fields, fields)):
            for attr, value in table.items():
                mine[attr] = mine.get(attr, CLEAN) | value
        for table, mine in ((summary.properties, properties), (summary.returns, returns)):
            for key, value in table.items():
                mine.setdefault(key, value)
        flags |= summary.flags
        decided |= summary.decided
        resolvers |= summary.resolvers
        backend = backend or summary.backend
    return ClassSummary(name, backend, stores, properties, returns, frozenset(flags),
                        frozenset(decided), fields, frozenset(resolvers), calls)


class HeaderCache:
    """Every file's class headers by content digest, one JSON file per configuration: a warm
    run builds the class graph without decoding a file."""

    def __init__(self, options: Options, enabled: bool = True) -> None:
        name = f"index-{fingerprint((), options, ())}.json"
        self.path = cache_file(name) if enabled else None
        self.known: Dict[str, list] = {}
        self.changed = False
        if self.path is not None:
            try:
                # a FIFO or device put there is never opened blocking, nor read
                data = json.loads(read_regular_file(self.path, MAX_CACHE_BYTES))
                if isinstance(data, dict):
                    self.known = {k: v for k, v in data.items() if _well_formed(v)}
            except (OSError, ValueError, RecursionError, MemoryError):
                self.known = {}

    def get(self, digest: str) -> Optional[list]:
        """``class_headers()`` of the file with this digest."""
        return self.known.get(digest)

    def put(self, digest: str, entry: list) -> None:
        if self.known.get(digest) != entry:
            self.known[digest] = entry
            self.changed = True

    def save(self, digests: Iterable[str]) -> None:
        """Write the entries of this run's files (others are dropped: one tree per config)."""
        if self.path is None or not self.changed:
            return
        keep = {d: self.known[d] for d in digests if d in self.known}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path, json.dumps(keep))  # a full disk leaves no temp file
        except OSError as exc:
            not_written(self.path, exc)


def _well_formed(headers) -> bool:
    """``class_headers()``: ``[[name, [base, ...]], ...]``."""
    return isinstance(headers, list) and all(
        isinstance(row, list) and len(row) == 2 and isinstance(row[0], str)
        and isinstance(row[1], list) and all(isinstance(b, str) for b in row[1])
        for row in headers)
