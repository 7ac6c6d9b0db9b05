"""Lint engine: the vocabulary's text pre-filter, one ``ast`` parse, one shared analysis.

Every rule queries the same per-file facts (``rules._facts.analyse``); the analysis itself
decides which files have findings, so there is no second, hand-kept gate. A file Python's parser
rejects is one KVP900, never silence (libcst, asked only then, tells newer syntax from broken).
libcst is also asked, in ``fix_source``, about files with a fix to apply: every fix is a libcst
transform (``lint_rules.fixes``) placed by the analysed positions, applied whole or not at all,
then re-parsed and re-linted.

Public API (used by the flake8 adapter, the CLI and the benchmarks): ``Finding``, ``ALL_CODES``,
``DEFAULT_CODES``, ``FIXABLE``, ``may_match``, ``lint_source``, ``fix_source``, ``ParseError``,
``offered_fixes``. Suppressions follow flake8 exactly (``lint_rules.noqa``).
"""
from __future__ import annotations

import ast
import functools
import sys
import warnings
from typing import Collection, Dict, List, Optional


from lint_rules import fixes as fix_model
from lint_rules.collector import collector_paused
from lint_rules.files import MAX_PARSED_CHARS
from lint_rules.finding import Finding
from lint_rules.fixes.plan import refusal
from lint_rules.noqa import NoqaMap
from lint_rules.options import Options
from lint_rules.rules import ALL_CODES, DEFAULT_CODES, FIXABLE, RULES
from lint_rules.rules._base import Report
from lint_rules.rules._facts import analyse, imported_names
from lint_rules.rules._vocab import BACKEND_SUFFIX
from lint_rules.rules._vocab import may_build
from lint_rules.rules._vocab import may_match as _vocabulary_may_match

__all__ = ["ALL_CODES", "DEFAULT_CODES", "FIXABLE", "Finding", "ParseError", "may_match",
           "lint_source", "fix_source", "offered_fixes"]


class ParseError(Exception):
    """Source that cannot be parsed (``lint_source`` reports it as KVP900 instead)."""


LINE_BREAK_RE = fix_model.LINE_BREAK_RE  # physical lines as Python and flake8 count them


def may_match(source: str, options: Options = Options()) -> bool:
    """Cheap text test derived from the rules' vocabulary: False means no rule can fire, so the
    file is never parsed (``rules._vocab.may_match``)."""
    return _vocabulary_may_match(source, options)


def has_backend_class_text(source: str, options: Options = Options()) -> bool:
    """The text names a backend base (``...Backend`` or a configured one) and has a class."""
    return "class" in source and (
        BACKEND_SUFFIX in source or any(base in source for base in options.backend_bases)
    )


def lint_source(
    source: str,
    *,
    codes: Collection[str] = DEFAULT_CODES,
    options: Options = Options(),
    honor_noqa: bool = False,
    tree: Optional[ast.AST] = None,
    package=None,
    path: str = "",
) -> List[Finding]:
    """Findings for ``source`` sorted by position; never raises on unparsable input (KVP900).

    ``tree`` is an ``ast`` of the same source when the caller has one (flake8 does);
    ``package`` (``lint_rules.package.PackageIndex``) and the file's ``path`` let the analysis
    follow bases, mixins and helpers of the other modules of the package (the CLI does).
    """
    with collector_paused():
        analysis = _FileAnalysis(source, codes, options, honor_noqa, tree, package=package,
                                 path=path)
        return analysis.findings()


def fix_source(
    source: str,
    *,
    codes: Collection[str] = DEFAULT_CODES,
    options: Options = Options(),
    honor_noqa: bool = True,
    unsafe: bool = False,
    package=None,
    path: str = "",
) -> tuple:
    """Apply every safe fix (and with ``unsafe`` every unsafe one); return
    ``(new_source, findings_left)``.

    A fix is applied whole or not at all: never when its finding is suppressed or when any line
    it would rewrite carries a ``# noqa`` that covers a KVP code. libcst is imported and run
    only when there is a fix to apply. If the result does not re-parse the source is returned
    unchanged. A class the resolver codemod declined no longer offers its unsafe fix in the
    findings left. A safe fix that had to wait (it lies in a class the codemod rewrote whole,
    for a code the rewrite leaves, or it overlaps a fix applied) is applied by another pass
    over the fixed source, up to ``FIX_PASSES``: a second ``--fix`` has nothing left to do.
    """
    current, analysis = source, None
    for _ in range(FIX_PASSES):
        fixed, analysis = _fix_pass(current, codes, options, honor_noqa, unsafe, package, path,
                                    analysis)
        left = analysis.findings()
        if fixed == current or not (any(f.fixable for f in left) or (
                unsafe and analysis._class_rewrites())):  # (a rewrite a fix freed: below)
            return fixed, left
        current = fixed
    return current, left


FIX_PASSES = 4  # a fix waiting on another is rare; two passes have been enough for every form
# The largest file libcst is asked to fix: its tree takes ~2 KB per character (a 1 Mi-character
# file, 2 GB), where ``ast`` takes 70-90 bytes; SGLang's largest module has a quarter of that.
MAX_FIX_CHARS = 1 << 20


def _fix_pass(source: str, codes, options: Options, honor_noqa: bool, unsafe: bool, package,
              path: str, before: Optional["_FileAnalysis"]) -> tuple:
    """One pass of ``fix_source``: ``(new source, the analysis of what is left)``; ``before``
    is the previous pass's, whose rewritten and declined classes are never offered again."""
    run = _FileAnalysis(source, codes, options, honor_noqa, package=package, path=path)
    if before is not None:  # (what the codemod declined; a refusal is of each pass's text)
        run.declined, run.rewritten = dict(before.carried), set(before.rewritten)
    plan = run.fix_plan(unsafe)
    refused = {name: why for name, why in run.refused.items() if why and unsafe}
    run.carried = dict(run.declined)
    run.declined = {**run.declined, **refused}  # --unsafe-fixes says why for each class
    if not plan:
        return source, run
    from lint_rules.fixes.apply import apply_fixes  # libcst: only for files with fixes

    # libcst takes "\n" and "\r\n" files but not CR-only ones: fix those as "\n" and back
    cr_only = "\r" in run.source and "\n" not in run.source
    heirs = None if package is None else (  # subclasses in other modules the rewrite meets
        lambda names, attrs: package.heirs_bind(names, attrs, path))
    try:  # libcst recurses once per operand: as deep as the analysis, under the same limit
        fixed, declined = _deep(apply_fixes, run.source.replace("\r", "\n") if cr_only
                                else run.source, plan, options, heirs)
    except RecursionError:  # deeper than even that: the findings stay, unfixed
        run.unfixed = "the file is nested too deep for libcst"
        return source, run
    if fixed is not None and cr_only:
        fixed = fixed.replace("\n", "\r")
    run.carried.update(declined)
    declined = {**run.declined, **declined}
    if fixed is None or fixed == run.source or not _parses(fixed):
        run.declined = declined
        run.unfixed = "libcst cannot rewrite this file without changing other bytes"
        return source, run  # a fix that does not round-trip is dropped
    new_source = run.bom + fixed
    left = _FileAnalysis(new_source, codes, options, honor_noqa, package=package, path=path)
    left.declined = declined
    # what is left in a class just rewritten only the package sees: a second run of the
    # codemod would change nothing there, so it is not offered again
    left.rewritten = run.rewritten | {change.name for fix in plan for change in fix.changes
                                      if isinstance(change, fix_model.RewriteClass)}
    left.rewritten -= set(declined)
    # a class refused for the old text (a flag read before the pool is set) may be rewritten
    # in the new one (the fix removed that read): refusals are asked again of the new text
    left.carried, left.declined = run.carried, dict(run.carried)
    if unsafe:
        left._class_rewrites()
        left.declined.update((name, why) for name, why in left.refused.items() if why)
    return new_source, left


def offered_fixes(
    source: str,
    *,
    codes: Collection[str] = DEFAULT_CODES,
    options: Options = Options(),
    honor_noqa: bool = True,
) -> tuple:
    """``(source without a BOM, {(line, col, code): [Fix, ...]})``: the fixes each finding
    offers, as ``findings()`` lists them (SARIF shows each one's replacements)."""
    run = _FileAnalysis(source, codes, options, honor_noqa)
    offered = run._offered()
    return run.source, {
        (*run._start(report), report.code): offered[id(report)]
        for report in run.reports if id(report) in offered
    }


def _parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


# CPython's errors for a literal's content ("\\N{nope}", b"é"): libcst reads both unchecked;
# and for a non-printable character in code, which libcst takes where it is a BOM (a second
# one at the start of a file: the first went with the file's encoding). No Python takes these.
_BAD_IN_EVERY_PYTHON = ("(unicode error)", "bytes can only contain ASCII",
                        "invalid non-printable character")


class _FileAnalysis:
    """One file: pre-filter, one ``ast`` parse, the shared facts, every enabled rule."""

    def __init__(
        self, source, codes, options: Options, honor_noqa: bool, tree=None,
        package=None, path: str = "",
    ) -> None:
        self.package, self.path = package, path
        # a byte order mark is encoding, not code: Python's parser rejects it inside a str
        self.bom = "\ufeff" if source.startswith("\ufeff") else ""
        self.source = source[len(self.bom):]
        self.options, self.honor_noqa = options, honor_noqa
        self.codes = frozenset(code.upper() for code in codes)
        self.rules = [rule for rule in RULES if rule.CODE in self.codes]
        self.reports: List[Report] = []
        self.lines: List[str] = []
        self.noqa = NoqaMap([])
        self.declined: dict = {}  # class the resolver codemod would not rewrite -> why
        self.rewritten: set = set()  # classes the codemod rewrote into this source
        self.carried: dict = {}  # of ``declined``, what the codemod itself declined (kept)
        self.refused: dict = {}  # class the codemod's checks refuse before any rewrite -> why
        self.tree: Optional[ast.AST] = None
        self.facts = self._own_facts = None  # as the rules saw them; same-file only
        self._flows: dict = {}  # the package analysis's class flows, for the same-file one
        self._alone: Optional[tuple] = None  # (facts, classes its same-file lint finds at)
        self._builds = False  # the text may hold a builder of a backend (``_vocab.may_build``)
        self.unfixed = ""  # why --fix/--diff could apply none of this file's safe fixes
        # with a package index the caller has filtered (a mixin may lack the vocabulary)
        if self.rules and (package is not None or may_match(self.source, options)):
            self.lines = LINE_BREAK_RE.split(self.source)
            self.noqa = NoqaMap(self.lines)
            if not (honor_noqa and self.noqa.skips_file):  # `# flake8: noqa`: nothing to say
                self._analyse(tree)

    def _analyse(self, tree: Optional[ast.AST]) -> None:
        given = tree is not None  # flake8's: read by other plugins too, never changed here
        if tree is None and self.package is not None:  # parsed already as another's module
            tree = self.package.tree_of(self.path, self.source)
        if tree is None and len(self.source) > MAX_PARSED_CHARS:
            return self._parse_failure(1, 0, (
                f"the file has {len(self.source):,} characters, more than the "
                f"{MAX_PARSED_CHARS:,} poolguard parses (its syntax tree would take about "
                f"{len(self.source) * 80 / 1e9:.1f} GB of memory)"),
                "split the file, or exclude it if it is data")
        if tree is None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # e.g. invalid escapes: not our business
                    tree = imported_names(ast.parse(self.source))
            except (RecursionError, MemoryError):
                # too deep for CPython's parser; libcst's native parser would crash the process
                return self._parse_failure(1, 0, "nesting too deep")
            except (SyntaxError, ValueError, OverflowError) as error:
                return self._libcst_decides(error)
            if self.package is not None:  # other files' summaries may read this module
                self.package.adopt(self.path, tree, self.source)
        try:
            if given:
                tree = imported_names(tree, owned=False)
            module = self.package.begin(self.path) if self.package is not None else ""
            self._builds = may_build(self.source, self.options)  # (the codemod's analysis too)
            facts = _deep(functools.partial(analyse, flows=self._flows, builds=self._builds),
                          tree, self.options, self.package, module, None, self.path)
            self.tree, self.facts = tree, facts
            if facts.classes:
                self.reports = _deep(self._check, facts)
        except RecursionError:  # deeper than even the raised limit: say so, never stay silent
            self.reports = []
            self._parse_failure(1, 0, "nesting too deep to analyse")

    def _check(self, facts) -> List[Report]:
        return [report for rule in self.rules for report in rule(facts, self.lines).check()]

    def _libcst_decides(self, error: Exception) -> None:
        """Python rejects the source: always one KVP900 (the rules read only ``ast``). libcst is
        asked only to say whether the syntax is merely newer than this Python (PEP 695/701)."""
        line = getattr(error, "lineno", None) or 1
        if "too many nested" in str(error):
            return self._parse_failure(line, 0, "nesting too deep")
        import libcst  # only here: importing it costs a cold run ~0.5 s of CPU per process

        col = max((getattr(error, "offset", None) or 1) - 1, 0)
        reason = getattr(error, "msg", None) or str(error) or type(error).__name__
        nul = self.source.find("\0")  # Python's ValueError for it has no position
        if nul >= 0:
            line = self.source.count("\n", 0, nul) + 1
            col = nul - self.source.rfind("\n", 0, nul) - 1
        try:
            libcst.parse_module(self.source)
        except Exception:  # libcst agrees (ParserSyntaxError, or a few other types on odd input)
            return self._parse_failure(line, col, reason)
        if nul >= 0 or reason.startswith(_BAD_IN_EVERY_PYTHON):
            # libcst does not check a literal's content (nor a NUL in a comment), and no
            # Python accepts these: never "newer syntax"
            return self._parse_failure(line, col, reason)
        here = ".".join(map(str, sys.version_info[:2]))
        self._parse_failure(line, col, f"{reason} under Python {here}; libcst reads newer syntax",
                            "run poolguard under a Python that has it")

    def _parse_failure(self, line: int, col: int, reason: str, remedy: Optional[str] = None
                       ) -> None:
        for rule in self.rules:
            report = rule(None, self.lines).parse_error(line, col, reason, remedy)
            if report is not None:
                self.reports.append(report)

    # -- positions and suppressions ---------------------------------------------------------
    def _line_text(self, number: int) -> str:
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def _start(self, report: Report) -> tuple:
        if report.position is not None:
            return report.position
        node = report.node
        return node.lineno, _char_col(self._line_text(node.lineno), node.col_offset)

    def _suppressed(self, report: Report) -> bool:
        """flake8 would drop it: a ``noqa`` in its line's noqa range covers its code."""
        return self.honor_noqa and self.noqa.covers(self._start(report)[0], report.code)

    def _protected(self, fix) -> bool:
        """A line the fix would rewrite has a ``# noqa`` (in its range) covering a KVP code."""
        if not self.honor_noqa or not self.noqa.mentions_noqa:
            return False
        return any(
            self.noqa.covers(number, code)
            for start, end in fix.spans() for number in range(start[0], end[0] + 1)
            for code in ALL_CODES
        )

    def _offered(self) -> Dict[int, list]:
        """Per unsuppressed report (by id), the fixes it offers that touch no protected line:
        its own safe fixes, then the unsafe rewrite of its class."""
        fixable = len(self.source) <= MAX_FIX_CHARS  # (libcst could not hold a larger one)
        rewrites = self._class_rewrites() if fixable else {}
        offered = {}
        for report in self.reports:
            if self._suppressed(report):
                continue
            own = [fix for fix in report.fixes if fixable and not self._protected(fix)]
            rewrite = rewrites.get(id(report.scope))
            if rewrite is not None and report.code in fix_model.RESOLVED_CODES:
                own.append(rewrite)
            offered[id(report)] = own
        return offered

    def _class_rewrites(self) -> Dict[int, "fix_model.Fix"]:
        """One unsafe resolver rewrite per backend class with KVP001-KVP003 findings."""
        codes: Dict[int, set] = {}
        scopes = {}
        for report in self.reports:
            if report.code in fix_model.RESOLVED_CODES and report.scope is not None:
                if not self._suppressed(report):
                    codes.setdefault(id(report.scope), set()).add(report.code)
                    scopes[id(report.scope)] = report.scope
        found = {}
        for key, node in scopes.items():
            if node.name in self.declined or node.name in self.rewritten or (
                    self._refuses(node.name)):
                continue
            change = fix_model.RewriteClass(node.name, (node.lineno, node.col_offset),
                                            (node.end_lineno, node.end_col_offset),
                                            frozenset(codes[key]))
            fix = fix_model.Fix(fix_model.RESOLVER_TITLE, fix_model.UNSAFE, (change,))
            if not self._protected(fix):  # a noqa anywhere in the class keeps it as it is
                found[key] = fix
        return found

    def _refuses(self, name: str) -> bool:
        """The codemod's checks refuse class ``name`` (why kept in ``refused``). It plans from
        same-file facts, so in package mode this file is analysed once more without the index
        (replaying the package analysis's method turns where what they read is the same)."""
        if name not in self.refused:
            if self.package is not None and self._own_facts is None:
                self._own_facts = _deep(functools.partial(
                    analyse, flows=self._flows, builds=self._builds),
                    self.tree, self.options)
                self._flows = {}
            facts = self.facts if self.package is None else self._own_facts
            self.refused[name] = refusal(facts, name, self.options,
                                         lambda: self._hazards_alone(name, facts))
        return self.refused[name] is not None

    def _hazards_alone(self, name: str, facts) -> bool:
        """The same-file lint finds KVP001-KVP003 in class ``name`` (as the codemod asks)."""
        if facts is self.facts:
            return True  # the reports are that lint's: the class is in them for a hazard
        if self._alone is None or self._alone[0] is not facts:  # once per file, not per class:
            # per class, a module of N flagged backends ran N whole lints (N = 800: 26 s)
            self._alone = (facts, {getattr(r.scope, "name", None) for r in _deep(self._check, facts)
                                   if r.code in fix_model.RESOLVED_CODES})
        return name in self._alone[1]

    def findings(self) -> List[Finding]:
        found, offered = [], self._offered()
        for report in self.reports:
            if id(report) not in offered:
                continue
            line, col = self._start(report)
            fixes = offered[id(report)]
            fixable = any(fix.safe for fix in fixes)
            notes = tuple((fix.title, fix.applicability) for fix in fixes
                          if not (fix.safe and self.unfixed))
            if fixable and self.unfixed:  # --fix ran and could not apply it: never advertise it
                fixable = False
                notes += ((f"fix not applied: {self.unfixed}", fix_model.DECLINED),)
            notes += self._declined(report)
            found.append(Finding(line, col, report.code, report.message, fixable, notes))
        return sorted(set(found), key=lambda f: (f.line, f.col, f.code, f.message))

    def _declined(self, report: Report) -> tuple:
        """``(why, DECLINED)`` when ``--unsafe-fixes`` did not rewrite the report's class, or
        rewrote it and the report is left (only the package analysis sees it)."""
        name = getattr(report.scope, "name", None)
        if report.code not in fix_model.RESOLVED_CODES:
            return ()
        if name in self.rewritten:  # a note, so that no cache answers a later lint with it
            why = f"{name} rewritten by --unsafe-fixes; what is left comes from other modules"
        elif name in self.declined:
            why = f"{name} not rewritten by --unsafe-fixes: {self.declined[name]}"
        else:
            return ()
        return ((why, fix_model.DECLINED),)

    def fix_plan(self, unsafe: bool) -> list:
        """The fixes to apply: with ``unsafe`` every class rewrite (they win over the safe
        fixes inside their class), then every safe fix that clashes with no earlier one."""
        offered = self._offered()
        plan: list = []
        if unsafe:
            plan = list({id(f): f for fixes in offered.values() for f in fixes
                         if not f.safe}.values())
        planned, accepted = set(plan), _Spans()
        for report in self.reports:
            for fix in offered.get(id(report), ()):
                if not fix.safe or fix in planned:
                    continue
                spans = list(fix.spans())
                if not any(map(accepted.overlaps, spans)):
                    plan.append(fix)
                    planned.add(fix)
                    accepted.extend(spans)
        return plan


class _Spans:
    """The text ranges of the fixes accepted so far, by line: a range that shares text with
    one shares a line with it, so a new range is compared with those on its own lines, not
    with every range accepted (a class of thousands of gates was planned in quadratic time)."""

    def __init__(self) -> None:
        self.by_line: dict = {}

    def overlaps(self, span) -> bool:
        return any(fix_model.overlap(span, other) for line in range(span[0][0], span[1][0] + 1)
                   for other in self.by_line.get(line, ()))

    def extend(self, spans) -> None:
        for span in spans:
            for line in range(span[0][0], span[1][0] + 1):
                self.by_line.setdefault(line, []).append(span)


# Valid Python nests up to CPython's parser limit (a ~3,000-term chain); following it takes
# more Python frames than the default limit. Python-to-Python calls do not grow the C stack on
# CPython 3.11+, so a higher limit for this one retry is safe.
_DEEP_LIMIT = 60_000


def _deep(function, *args):
    """``function(*args)``; on RecursionError once more under a raised recursion limit."""
    try:
        return _roomy(function, *args)
    except RecursionError:
        previous = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous, _DEEP_LIMIT))
        try:
            return _roomy(function, *args)
        finally:
            sys.setrecursionlimit(previous)


def _calls(function, *args):
    return function(*args)


# CPython (3.11+) keeps Python frames in 16 KiB chunks, each mmap'd when a call needs a new one
# and unmapped as soon as its first frame returns: the analysis recurses deep and back again
# many times over one chunk's edge, so it mapped and unmapped 30,000 chunks a run, each new
# mapping zeroed page by page by the kernel (a quarter of a cold run's system time). A frame larger
# than a chunk gets one of its own, as large as the next power of two that holds it: a frame of
# a little over 128 KiB (unused locals) gets 256 KiB, so what it calls runs in the 128 KiB
# left with no chunk taken or given back (the analysis of SGLang's releases stays within 64 KiB
# of frames: with 64 KiB left, no 16 KiB chunk is mapped; with 32 KiB, 1,500 are). Each call
# pays for its chunk once (80 us).
_ROOM_SLOTS = 16_400  # 8 bytes each
try:
    _roomy = _calls.__code__.replace(
        co_varnames=_calls.__code__.co_varnames + tuple(f"_{i}" for i in range(_ROOM_SLOTS)),
        co_nlocals=_calls.__code__.co_nlocals + _ROOM_SLOTS)
    _roomy = type(_calls)(_roomy, globals(), "_roomy")
except (TypeError, ValueError):  # an interpreter whose code objects do not take it: no room
    _roomy = _calls


_char_col = fix_model.char_col
