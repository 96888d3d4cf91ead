"""The committed mutation cache: every mutant's verdict, reused while what decides it is unchanged.

The whole mutmut run takes hours on two cores, so CI reuses the verdicts recorded in
tools/mutation/cache.json and runs mutmut only for the mutants whose verdict may have changed.

An entry per mutated function holds its source hash, its tests hash, the test files that covered it
(mutmut's stats: the tests whose run called the function), how many mutants it has and the verdict of
each mutant that was not killed, keyed by its change (tools.mutation.mutants); every other mutant of
the function was killed. The cache also holds the environment hash, the hash of every file under
the test roots when it was written, and the spec rows each test file read when last run (rows_read).

What makes a function's verdicts stale (all its mutants run again):
* its source hash changed: its own code (not comments or formatting), or its module's statements
  other than imports, functions and classes (constants), or, for a method, its class's bases,
  decorators and attributes; a new function has no entry;
* its tests hash changed: the content of a test file that covered it, of a helper such a file
  imports from the test roots (tests/, src/contracts/spec_suite/; transitively, plugins named in
  strings too), of a conftest.py or __init__.py on such a file's path, of a data file under the test
  roots whose file name such a file's text holds (a README no code names is read by no test); of the
  specs (specs/), what those files' tests read (SpecIndex): the content of each row they read when
  mutmut's stats pass last ran them (tools.mutation.reads records it: a field looked up outside the
  loader), and the frame every key holds: which rows exist, their id, kind, level and category (what
  selecting rows reads), the files' other tables and the files without rows. A comment, whitespace,
  or the order of keys or rows changes nothing; a row no covering file read changes nothing; a file
  never recorded reads every row. For a function of the package that reads the spec files' text
  (contracts.spec: the loader, whose tests parse the real files), every row and the text as well; a
  covering file that is deleted;
* the environment changed (every entry): mutmut's version, Python's minor version, pyproject's
  [tool.mutmut] and [tool.pytest.ini_options], src/pytest_contracts.py, src/contracts/verify/profiles.py.

What makes a not-killed verdict be checked again (only the function's not-killed mutants, against
the changed tests only): a test file that is new, or whose own text or helpers changed, since the
cache was written. Tests that did not kill a mutant before cannot kill it now, so only the changed
ones run; a kill replaces the verdict, anything else keeps it. A killed verdict stays killed: tests
added elsewhere kill more, never fewer.

What does not invalidate anything: an edit of another function (even one this function calls, or a
decorated function mutmut never mutates), of a test file that never covered the function (unless
it kills a not-killed mutant, as above), comments and formatting (of the code, and of a spec file
outside contracts.spec's functions: the order of its rows only orders report lines, which a test
compares the same way on the mutant and on the original), the versions of installed packages
(numpy, hypothesis, torch), the tooling in tools/. `python -m tools.mutation update --all` rebuilds
every entry; run it after such changes, or before a release.

A stale function is run against the test files that covered it before and every test file new or
changed since the cache was written; a new function also against the files that cover its module's
other functions and those that name it. A test elsewhere that now
reaches the function is not seen then: that can only leave a mutant unkilled (the gate says so),
never count a kill that is not there; `update --all` runs the whole suite's stats.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.mutation.mutants import Mutant

FORMAT = 2
KILLED = "killed"


@dataclass(frozen=True)
class Layout:
    """Where a project keeps what the cache reads (paths relative to root)."""

    root: Path = Path(".")
    source: str = "src/contracts"
    unmutated: tuple[str, ...] = ("spec_suite",)
    test_roots: tuple[str, ...] = ("tests", "src/contracts/spec_suite")
    specs: tuple[str, ...] = ("specs",)
    environment_files: tuple[str, ...] = ("src/pytest_contracts.py", "src/contracts/verify/profiles.py")
    cache: str = "tools/mutation/cache.json"
    equivalents: str = "tools/mutation/equivalents.toml"
    # the functions that read the spec files' text (the loader): their tests hash holds that text too
    spec_readers: tuple[str, ...] = ("contracts.spec.",)

    def path(self, relative: str) -> Path:
        return self.root / relative

    def reads_spec_text(self, function: str) -> bool:
        return function.startswith(self.spec_readers)

    def is_spec(self, relative: str) -> bool:
        return relative.startswith(tuple(f"{top}/" for top in self.specs))


def digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


# --- the files tests depend on ------------------------------------------------------------------


def canonical(document: Any) -> Any:
    """A spec document with its rows (a list of tables, each with an id) keyed by id: their order goes."""
    if isinstance(document, dict):
        return {key: canonical(value) for key, value in document.items()}
    if isinstance(document, list) and document and all(isinstance(i, dict) and "id" in i for i in document):
        return {str(item["id"]): canonical(item) for item in document}
    if isinstance(document, list):
        return [canonical(item) for item in document]
    return document


def meaning_hash(path: Path) -> str:
    """The hash of what a spec file says: its parsed TOML or JSON, canonical (comments, whitespace, the
    order of keys and of rows left out); a file that does not parse, its bytes (it says something else)."""
    document = parsed(path)
    return file_hash(path) if document is None else hash_of(canonical(document))


def listed_files(layout: Layout, tops: Iterable[str]) -> list[Path]:
    """The files under tops, but hidden ones (.hypothesis, ...) and bytecode."""
    found: list[Path] = []
    for relative in tops:
        top = layout.path(relative)
        for path in sorted(top.rglob("*")) if top.is_dir() else []:
            hidden = any(part.startswith(".") for part in path.relative_to(top).parts)
            if path.is_file() and not hidden and "__pycache__" not in path.parts and path.suffix != ".pyc":
                found.append(path)
    return found


def test_root_files(layout: Layout) -> dict[str, str]:
    """path (relative to root, posix) -> hash, for every file under the test roots (its content) and the
    specs (its meaning: meaning_hash)."""
    found = {
        path.relative_to(layout.root).as_posix(): file_hash(path)
        for path in listed_files(layout, layout.test_roots)
    }
    for path in listed_files(layout, layout.specs):
        found[path.relative_to(layout.root).as_posix()] = meaning_hash(path)
    return found


def spec_texts(layout: Layout) -> dict[str, str]:
    """path -> content hash of every spec file: the text the loader's functions read."""
    return {
        path.relative_to(layout.root).as_posix(): file_hash(path)
        for path in listed_files(layout, layout.specs)
    }


def is_test_file(path: str) -> bool:
    name = path.rpartition("/")[2]
    return name.startswith("test_") and name.endswith(".py")


class Dependencies:
    """Which files under the test roots a test file's run reads: its imports (transitively), the
    conftest.py and __init__.py files on its path, and the data files beside it."""

    def __init__(self, layout: Layout, files: Mapping[str, str]) -> None:
        self.layout = layout
        self.files = files
        self.memo: dict[str, frozenset[str]] = {}
        self.imports: dict[str, set[str]] = {}

    def module_file(self, module: str) -> list[str]:
        """The files under the test roots a module name imports (its packages' __init__ too)."""
        parts = module.split(".")
        found: list[str] = []
        for base in ("", "src/"):
            for end in range(1, len(parts) + 1):
                stem = base + "/".join(parts[:end])
                for candidate in (f"{stem}/__init__.py", f"{stem}.py"):
                    if candidate in self.files:
                        found.append(candidate)
        return found

    def direct(self, path: str) -> set[str]:
        """The files under the test roots a file imports (or names as a module in a string)."""
        if path not in self.imports:
            self.imports[path] = self.imported(path)
        return self.imports[path]

    def imported(self, path: str) -> set[str]:
        if not path.endswith(".py"):
            return set()
        tree = ast.parse(self.layout.path(path).read_bytes())
        package = path.rpartition("/")[0].split("/")
        if package[:1] == ["src"]:
            package = package[1:]
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package[: len(package) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value:
                names.add(node.value)  # a plugin or module named in a string (`-p tests.common.x`)
        return {file for name in names if name.isascii() for file in self.module_file(name)}

    def beside(self, path: str) -> set[str]:
        """What a file's run reads besides its imports: the conftest.py and __init__.py files on its
        path, and the data files under the test roots whose name its text holds (a README no code names
        is read by no test)."""
        directory = path.rpartition("/")[0]
        found = self.named_data(path)
        steps = directory.split("/")
        for end in range(1, len(steps) + 1):
            found.update(
                candidate
                for candidate in (
                    "/".join([*steps[:end], "conftest.py"]),
                    "/".join([*steps[:end], "__init__.py"]),
                )
                if candidate in self.files
            )
        return found

    def named_data(self, path: str) -> set[str]:
        if not path.endswith(".py") or self.layout.is_spec(path):
            return set()
        text = self.layout.path(path).read_text(encoding="utf-8")
        return {
            other
            for other in self.files
            if not other.endswith(".py")
            and not self.layout.is_spec(other)
            and other.rpartition("/")[2] in text
        }

    def of(self, path: str) -> frozenset[str]:
        """path and every file under the test roots its run reads (the whole import graph it reaches)."""
        if path not in self.memo:
            seen: set[str] = set()
            pending = [path]
            while pending:
                current = pending.pop()
                if current not in seen:
                    seen.add(current)
                    pending.extend((self.direct(current) | self.beside(current)) - seen)
            self.memo[path] = frozenset(seen)
        return self.memo[path]


# The fields selecting a row reads (SpecRow's properties: tools.mutation.reads does not count them as
# reads), and the key in a rows-read map of the reads no single test file owns.
STRUCTURE = ("id", "kind", "level", "category")
EVERY_TEST = ""


def field_read(row_id: str, name: str) -> str:
    """How a rows-read map names one field of one row (a row id alone names the whole row)."""
    return f"{row_id}:{name}"


ABSENT = "absent"  # the hash of a field a row does not have (a lookup that found nothing read that)


@dataclass(frozen=True)
class SpecIndex:
    """What the spec files say, split so a key can hold only what its tests read: each row's fields,
    each by its meaning, and the frame (everything but the rows' own fields: each file's other tables,
    every row's STRUCTURE, files that hold no rows) that every key holds."""

    frame: str
    rows: Mapping[str, Mapping[str, str]]  # row id -> field -> the hash of its canonical value

    @classmethod
    def of(cls, layout: Layout) -> SpecIndex:
        frame: list[str] = []
        rows: dict[str, dict[str, str]] = {}
        for path in listed_files(layout, layout.specs):
            name = path.relative_to(layout.root).as_posix()
            document = parsed(path)
            listed = document.get("rows") if isinstance(document, dict) else None
            if not isinstance(listed, list) or not all(isinstance(r, dict) and "id" in r for r in listed):
                frame.append(f"{name}={meaning_hash(path)}")
                continue
            assert isinstance(document, dict)
            outline = {key: value for key, value in document.items() if key != "rows"}
            outline["rows"] = [{key: row[key] for key in STRUCTURE if key in row} for row in listed]
            frame.append(f"{name}={hash_of(canonical(outline))}")
            for row in listed:
                fields = rows.setdefault(str(row["id"]), {})
                for key, value in row.items():
                    fields[key] = digest(fields.get(key, ""), hash_of(canonical(value)))
        return cls(digest(*frame), rows)

    def hash(self, read: Iterable[str] | None) -> str:
        """The frame and what was read (None: every row): `ROW` reads a row's every field, `ROW:FIELD`
        one field (or its absence)."""
        parts: set[str] = set()
        for entry in self.rows if read is None else read:
            row_id, _, name = entry.partition(":")
            fields = self.rows.get(row_id)
            if fields is None:
                continue  # a row that is gone: the frame says so
            if name:
                parts.add(f"{entry}={fields.get(name, ABSENT)}")
            else:
                parts.update(f"{row_id}:{key}={value}" for key, value in fields.items())
                parts.add(f"{row_id}={','.join(sorted(fields))}")
        return digest("specs", self.frame, *sorted(parts))


def parsed(path: Path) -> Any:
    """A spec file's parsed document, or None when it is not TOML or JSON that parses."""
    try:
        text = path.read_bytes().decode("utf-8")
        if path.suffix == ".toml":
            return tomllib.loads(text)
        return json.loads(text) if path.suffix == ".json" else None
    except (UnicodeDecodeError, ValueError):
        return None


def hash_of(document: Any) -> str:
    as_json = json.dumps(document, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(as_json.encode()).hexdigest()[:16]


class TestSide:
    """What decides verdicts on the test side today (see the module's docstring): the files under the
    test roots, what each test file reads of them, the specs, and the rows each test file read when
    last run (rows_read: test file -> row ids; a file missing from it reads every row)."""

    def __init__(
        self,
        layout: Layout,
        files: Mapping[str, str],
        rows_read: Mapping[str, Sequence[str]],
        specs: tuple[SpecIndex, Mapping[str, str]] | None = None,
    ):
        """specs: the SpecIndex and spec_texts read before a run (default: read now)."""
        self.layout = layout
        self.files = files
        self.dependencies = Dependencies(layout, files)
        self.specs, self.texts = specs or (SpecIndex.of(layout), spec_texts(layout))
        self.rows_read = rows_read

    def rows_of(self, covered_by: Iterable[str]) -> set[str] | None:
        """The rows the files' tests read (with those no file owns), None when one was never recorded."""
        read = set(self.rows_read.get(EVERY_TEST, ()))
        for test in covered_by:
            if test not in self.rows_read:
                return None
            read.update(self.rows_read[test])
        return read

    def hash(self, covered_by: Iterable[str], texts: bool = False, rows: Iterable[str] = ()) -> str:
        """The hash of what decides the verdicts of the files' tests; texts: with the spec files' text
        (and every row); rows: these rows too (a spec mutant's own row)."""
        covered = list(covered_by)
        read_files: set[str] = set()
        for test in covered:
            read_files |= self.dependencies.of(test) if test in self.files else {test}
        parts = [f"{path}={self.files.get(path, 'missing')}" for path in sorted(read_files)]
        read_rows = None if texts else self.rows_of(covered)
        parts.append(self.specs.hash(None if read_rows is None else read_rows | set(rows)))
        if texts:
            parts += [f"text {path}={text}" for path, text in sorted(self.texts.items())]
        return digest(*parts)

    def of_function(self, function: str, covered_by: Iterable[str]) -> str:
        """hash() for a function: with the spec files' text when the function reads it (the loader)."""
        return self.hash(covered_by, texts=self.layout.reads_spec_text(function))


def environment_hash(layout: Layout) -> str:
    """mutmut's version, Python's minor version, the mutmut and pytest configuration and the files
    every test run reads (see the module's docstring)."""
    from importlib.metadata import version

    pyproject = tomllib.loads(layout.path("pyproject.toml").read_text(encoding="utf-8"))
    tool = pyproject.get("tool", {})
    configuration = {"mutmut": tool.get("mutmut", {}), "pytest": tool.get("pytest", {})}
    parts = [
        version("mutmut"),
        f"{sys.version_info.major}.{sys.version_info.minor}",
        json.dumps(configuration, sort_keys=True),
    ]
    for name in layout.environment_files:
        path = layout.path(name)
        parts.append(f"{name}={file_hash(path) if path.exists() else 'missing'}")
    return digest(*parts)


# --- the cache ------------------------------------------------------------------------------------


@dataclass
class Entry:
    """One function's recorded verdicts."""

    source: str
    tests: str
    covered_by: tuple[str, ...]
    mutants: int
    not_killed: dict[str, str] = field(default_factory=dict)  # change -> status; the rest were killed

    def verdict(self, change: str) -> str:
        return self.not_killed.get(change, KILLED)


@dataclass
class Cache:
    environment: str = ""
    files: dict[str, str] = field(default_factory=dict)  # every test-root file's hash when written
    functions: dict[str, Entry] = field(default_factory=dict)
    rows_read: dict[str, list[str]] = field(default_factory=dict)  # test file -> spec rows its tests read


def load(path: Path) -> Cache:
    """The cache file, or an empty cache when there is none."""
    if not path.exists():
        return Cache()
    document = json.loads(path.read_bytes())
    if document.get("format") != FORMAT:
        return Cache()
    groups: dict[str, list[str]] = document.get("coverage", {})
    entries = {
        name: Entry(
            item["source"],
            item["tests"],
            tuple(groups[item["covered_by"]]),
            item["mutants"],
            dict(item.get("not_killed", {})),
        )
        for name, item in document["functions"].items()
    }
    rows_read = {file: list(ids) for file, ids in document.get("rows_read", {}).items()}
    return Cache(document["environment"], dict(document["files"]), entries, rows_read)


def dumps(cache: Cache) -> str:
    """The cache as deterministic JSON, one line per file, per coverage set and per function: an edit
    changes the lines of what it touched only."""
    groups: dict[str, list[str]] = {}
    for entry in cache.functions.values():
        files = sorted(entry.covered_by)
        groups[digest(*files)[:10]] = files

    def one(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    def block(name: str, items: Mapping[str, Any], last: bool = False) -> list[str]:
        lines = [f" {one(name)}: {{"]
        rows = [f"  {one(key)}: {one(items[key])}" for key in sorted(items)]
        lines.extend(row + ("," if index < len(rows) - 1 else "") for index, row in enumerate(rows))
        lines.append(" }" + ("" if last else ","))
        return lines

    functions = {
        name: {
            "source": entry.source,
            "tests": entry.tests,
            "covered_by": digest(*sorted(entry.covered_by))[:10],
            "mutants": entry.mutants,
            **({"not_killed": entry.not_killed} if entry.not_killed else {}),
        }
        for name, entry in cache.functions.items()
    }
    lines = ["{", f' "format": {FORMAT},', f' "environment": {one(cache.environment)},']
    lines += block("files", cache.files)
    lines += block("coverage", groups)
    lines += block("rows_read", cache.rows_read)
    lines += block("functions", functions, last=True)
    return "\n".join([*lines, "}"]) + "\n"


def save(cache: Cache, path: Path) -> None:
    path.write_text(dumps(cache), encoding="utf-8")


# --- what is stale --------------------------------------------------------------------------------


@dataclass
class Plan:
    """What today's code and tests need: the verdicts that stand, and the mutants to run."""

    verdicts: dict[str, str]  # mutmut name -> status, for every mutant whose verdict stands
    stale: dict[str, str]  # function -> why all its mutants run
    recheck: dict[str, list[Mutant]]  # function -> its not-killed mutants, run against changed tests
    selection: list[str] | None  # the test files to run (None: every test)
    changed_tests: list[str]  # test files new or changed since the cache was written
    specs: tuple[SpecIndex, Mapping[str, str]]  # what the specs said when planned (see TestSide)

    def mutants_to_run(self, today: Mapping[str, Sequence[Mutant]]) -> list[Mutant]:
        run = [mutant for function in sorted(self.stale) for mutant in today[function]]
        return run + [mutant for function in sorted(self.recheck) for mutant in self.recheck[function]]


def changed_test_files(
    layout: Layout, cache: Cache, files: Mapping[str, str], dependencies: Dependencies
) -> list[str]:
    """Test files that are new, or whose own text or any file they read changed, since the cache."""
    changed = {path for path in files if cache.files.get(path) != files[path]}
    return sorted(path for path in files if is_test_file(path) and dependencies.of(path) & changed)


def naming(function: str, layout: Layout, files: Mapping[str, str]) -> set[str]:
    """The test files whose text names the function (its last dotted part, as a word)."""
    word = re.compile(rf"\b{re.escape(function.rpartition('.')[2])}\b")
    return {
        path
        for path in files
        if is_test_file(path) and word.search(layout.path(path).read_text(encoding="utf-8"))
    }


def plan(
    cache: Cache,
    today: Mapping[str, Sequence[Mutant]],
    layout: Layout,
    files: Mapping[str, str],
    environment: str,
    full_selection: bool = False,
) -> Plan:
    """Which verdicts stand and which mutants run (see the module's docstring for the rules)."""
    side = TestSide(layout, files, cache.rows_read)
    dependencies = side.dependencies
    verdicts: dict[str, str] = {}
    stale: dict[str, str] = {}
    recheck: dict[str, list[Mutant]] = {}
    changed = changed_test_files(layout, cache, files, dependencies) if cache.functions else []
    for function, mutants in today.items():
        entry = cache.functions.get(function)
        if cache.environment != environment:
            stale[function] = "the environment changed" if cache.functions else "not in the cache"
        elif entry is None:
            stale[function] = "not in the cache"
        elif entry.source != mutants[0].source_hash:
            stale[function] = "its source changed"
        elif entry.tests != side.of_function(function, entry.covered_by):
            stale[function] = "its tests changed"
        elif entry.mutants != len(mutants):
            stale[function] = "its mutants changed"
        else:
            for mutant in mutants:
                verdicts[mutant.name] = entry.verdict(mutant.change)
            pending = [mutant for mutant in mutants if entry.verdict(mutant.change) in RECHECKED]
            if pending and changed:
                recheck[function] = pending
    # the changed test files run whenever anything does: a new or edited file may reach a stale function
    # its old coverage does not show (and it rechecks the not-killed mutants)
    selection: set[str] | None = set(changed) if recheck or stale else set()
    for function in stale:
        entry = cache.functions.get(function)
        if full_selection or cache.environment != environment:
            selection = None
            break
        if entry is not None and stale[function] != "not in the cache":
            assert selection is not None
            selection |= {path for path in entry.covered_by if path in files}
        else:
            module = today[function][0].module
            assert selection is not None
            for other, known in cache.functions.items():
                if other.startswith(module + "."):
                    selection |= {path for path in known.covered_by if path in files}
            selection |= naming(function, layout, files)
    chosen = None if selection is None else sorted(selection)
    return Plan(verdicts, stale, recheck, chosen, changed, (side.specs, side.texts))


# --- recording a run ------------------------------------------------------------------------------

UNFINISHED_STATUSES = frozenset({"not checked", "check was interrupted by user"})
RECHECKED = frozenset({"survived", "no tests", "suspicious", "segfault"})


@dataclass
class Outcome:
    """What a run of some mutants found: each one's status, and which test files called each function."""

    statuses: dict[str, str]  # mutmut name -> status
    covering: dict[str, set[str]]  # function -> test files whose tests called it
    rows_read: dict[str, set[str]] = field(default_factory=dict)  # test file run -> spec rows it read


class UnfinishedRunError(RuntimeError):
    """Some mutants of the run have no verdict: the cache is not written."""


def record(
    cache: Cache,
    planned: Plan,
    today: Mapping[str, Sequence[Mutant]],
    outcome: Outcome,
    layout: Layout,
    files: Mapping[str, str],
    environment: str,
    alive: Iterable[str] | None = None,
) -> Cache:
    """The cache after the run: the stale functions' entries replaced, the rechecked verdicts updated
    (a kill replaces a not-killed verdict; anything else keeps it), functions that are gone (not in
    `alive`, default: today's) dropped."""
    ran = planned.mutants_to_run(today)
    unfinished = [m.name for m in ran if outcome.statuses.get(m.name, "not checked") in UNFINISHED_STATUSES]
    if unfinished:
        raise UnfinishedRunError(f"{len(unfinished)} mutants did not finish, e.g. {unfinished[0]}")
    same = cache.environment == environment
    rows_read = rows_read_after(cache.rows_read if same else {}, outcome, files)
    side = TestSide(layout, files, rows_read, planned.specs)
    kept = cache.functions if same else {}
    existing = set(today if alive is None else alive)
    entries = {name: entry for name, entry in kept.items() if name in existing}
    for function in planned.stale:
        mutants = today[function]
        covered = tuple(sorted(outcome.covering.get(function, set())))
        statuses = {m.change: outcome.statuses[m.name] for m in mutants}
        entries[function] = Entry(
            mutants[0].source_hash,
            side.of_function(function, covered),
            covered,
            len(mutants),
            {change: status for change, status in statuses.items() if status != KILLED},
        )
    for function, mutants in planned.recheck.items():
        entry = entries[function]
        covered = tuple(sorted(set(entry.covered_by) | outcome.covering.get(function, set())))
        not_killed = dict(entry.not_killed)
        for mutant in mutants:
            if outcome.statuses[mutant.name] == KILLED:
                del not_killed[mutant.change]
            elif outcome.statuses[mutant.name] not in RECHECKED:
                not_killed[mutant.change] = outcome.statuses[mutant.name]
        entries[function] = Entry(
            entry.source,
            side.of_function(function, covered),
            covered,
            entry.mutants,
            not_killed,
        )
    return Cache(environment, dict(files), dict(sorted(entries.items())), rows_read)


def merged_rows_read(parts: Iterable[Mapping[str, Sequence[str]]]) -> dict[str, list[str]]:
    """Rows-read maps of runs over disjoint sources (shards) as one: a file's reads in any of them."""
    merged: dict[str, set[str]] = {}
    for part in parts:
        for file, ids in part.items():
            merged.setdefault(file, set()).update(ids)
    return {file: sorted(ids) for file, ids in sorted(merged.items())}


def rows_read_after(
    known: Mapping[str, Sequence[str]], outcome: Outcome, files: Mapping[str, str]
) -> dict[str, list[str]]:
    """The rows-read map after a run: each file run replaces its record, the reads no file owns
    accumulate, files that are gone leave."""
    merged = {file: set(ids) for file, ids in known.items() if file == EVERY_TEST or file in files}
    for file, ids in outcome.rows_read.items():
        merged[file] = (merged.get(file, set()) | ids) if file == EVERY_TEST else set(ids)
    return {file: sorted(ids) for file, ids in merged.items()}


def verdicts_of(planned: Plan, outcome: Outcome, today: Mapping[str, Sequence[Mutant]]) -> dict[str, str]:
    """Every mutant's verdict: the cached ones that stand, the fresh ones, and for a rechecked mutant
    its kill (or its unfinished run), else its cached verdict."""
    found = dict(planned.verdicts)
    for function in planned.stale:
        for mutant in today[function]:
            found[mutant.name] = outcome.statuses.get(mutant.name, "not checked")
    for mutants in planned.recheck.values():
        for mutant in mutants:
            status = outcome.statuses.get(mutant.name, "not checked")
            if status not in RECHECKED:
                found[mutant.name] = status
    return found
