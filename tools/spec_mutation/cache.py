"""The committed spec-mutation cache: each row's and each guarded function's verdicts, reused while what
decides them is unchanged (tools/spec_mutation/cache.json).

A whole spec-mutation run takes about twenty minutes on two cores; CI reruns only what may have changed.

A spec row's entry holds its key, the test files bound to it (the files of the tests its `spec` marker
names), its bound test count, its mutant count and the status of each mutant that was not killed. The
key is the hash of the implementation its tests run (Implementation: the source hash of each function
mutmut's cache saw those files' tests call, and the skeleton of src/contracts outside the spec suite
without those functions: imports, constants, class headers, decorated functions, functions the mutmut
cache does not hold; an edit there stales every row) and of the row's tests
(tools.mutation.cache.TestSide: the bound files, every file under the test roots they import, the
conftest files on their path and the data files they name; of the specs, the row itself, the rows those
files read when mutmut's stats pass last ran them, and the frame every key holds:
tools.mutation.cache.SpecIndex).

A guarded function's entry is the same, keyed by the function's own source hash (its AST, as
tools.mutation keys mutmut's functions) and the tests hash of the files whose tests called it in the
profiled pass.

Every entry is stale when the environment changed: Python's minor version, hypothesis's version (the
derandomized examples come from it), pyproject's pytest configuration, the files every test run reads
(src/pytest_contracts.py, src/contracts/verify/profiles.py), this tooling's own files, and which
third-party engines are installed (an adapter's guards are mutated only where its engine is). A row or
function whose mutants changed (count, or a not-killed change that no longer exists) runs again.

Not seen without a fresh run: a test file that newly names a row or newly calls a guarded function.
Such a test can only kill more, so a cached verdict errs towards "not killed". One gap errs the other
way: a row's tests that come to call a function mutmut's cache has not seen them call (the cache
refreshes a function's coverage when its own verdicts run again) are not keyed on that function until
then; an edit of it alone may leave a row's cached kill standing. `python -m tools.spec_mutation
--fresh --write-cache` rebuilds every entry (before a release, and with every `mutation update --all`).
A verdict of "not run" (a row whose tests fail unmutated, a mutant that could not be installed) is
never cached.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tools.mutation.cache import Layout, TestSide, digest, file_hash, test_root_files
from tools.mutation.cache import load as load_mutation_cache
from tools.mutation.mutants import CLASS_SEPARATOR, module_name, mutated_files, source_hashes
from tools.spec_mutation.status import KILLED, NOT_RUN

CACHE = Path("tools/spec_mutation/cache.json")
FORMAT = 1
TOOLING = "tools/spec_mutation"
ENGINES = ("torch", "micrograd", "jax", "tinygrad", "autograd")  # the shipped adapters' engines


@dataclass(frozen=True)
class Entry:
    """One row's or one function's recorded verdicts."""

    key: str
    covered_by: tuple[str, ...]
    tests: int
    mutants: int
    not_killed: dict[str, str] = field(default_factory=dict)  # change -> status; the rest were killed

    def verdict(self, change: str) -> str:
        return self.not_killed.get(change, KILLED)


@dataclass
class Cache:
    environment: str = ""
    rows: dict[str, Entry] = field(default_factory=dict)
    functions: dict[str, Entry] = field(default_factory=dict)


def environment_hash(layout: Layout) -> str:
    """What every verdict depends on (see the module's docstring)."""
    pyproject = tomllib.loads(layout.path("pyproject.toml").read_text(encoding="utf-8"))
    parts = [
        f"{sys.version_info.major}.{sys.version_info.minor}",
        version("hypothesis"),
        json.dumps(pyproject.get("tool", {}).get("pytest", {}), sort_keys=True),
        *(f"{engine}={importlib.util.find_spec(engine) is not None}" for engine in ENGINES),
    ]
    tooling = sorted(layout.path(TOOLING).glob("*.py"))
    for path in [*(layout.path(name) for name in layout.environment_files), *tooling]:
        parts.append(f"{path.name}={file_hash(path) if path.exists() else 'missing'}")
    return digest(*parts)


class Implementation:
    """The source a row's tests run, split by function: the functions mutmut's cache saw each test file
    call (tools/mutation/cache.json's coverage), each by its source hash, and the skeleton every key
    holds (every file without those functions: imports, constants, classes, decorated functions, and
    functions the cache does not hold)."""

    def __init__(self, layout: Layout, coverage: Mapping[str, Iterable[str]]) -> None:
        source = layout.path(layout.source)
        self.coverage = {function: frozenset(files) for function, files in coverage.items()}
        self.functions: dict[str, str] = {}
        skeleton: list[str] = []
        for path in mutated_files(source):
            module = module_name(path.relative_to(layout.root))
            text = path.read_text(encoding="utf-8")
            hashes = dotted_hashes(module, source_hashes(text))
            self.functions.update(hashes)
            tracked = {name for name in hashes if name in self.coverage}
            rest = ast.dump(without(ast.parse(text), module, tracked))
            skeleton.append(f"{path.relative_to(source).as_posix()}={rest}")
        self.skeleton = digest(*skeleton)

    def hash(self, files: Iterable[str]) -> str:
        """The skeleton and the functions the files' tests called."""
        run = frozenset(files)
        reached = sorted(name for name, covering in self.coverage.items() if covering & run)
        return digest(
            "implementation", self.skeleton, *(f"{n}={self.functions.get(n, '-')}" for n in reached)
        )


def dotted_hashes(module: str, hashes: Mapping[str, str]) -> dict[str, str]:
    """source_hashes' mangled names as dotted ones (module.function, module.Class.method)."""
    found: dict[str, str] = {}
    for mangled, value in hashes.items():
        if mangled.startswith(f"x{CLASS_SEPARATOR}"):
            owner, _, method = mangled[2:].partition(CLASS_SEPARATOR)
            found[f"{module}.{owner}.{method}"] = value
        else:
            found[f"{module}.{mangled[2:]}"] = value
    return found


def without(tree: ast.Module, module: str, tracked: set[str]) -> ast.Module:
    """The module with the tracked functions (top-level and methods) left out."""

    def kept(statements: list[ast.stmt], prefix: str) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for node in statements:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and f"{prefix}{node.name}" in tracked:
                continue
            if isinstance(node, ast.ClassDef):
                node = ast.ClassDef(
                    node.name,
                    node.bases,
                    node.keywords,
                    kept(node.body, f"{prefix}{node.name}."),
                    node.decorator_list,
                )
            out.append(node)
        return out

    return ast.Module(kept(tree.body, f"{module}."), [])


class Keys:
    """Today's keys of rows and functions, from today's files (and the rows each test file read when
    mutmut's stats pass last ran it: tools/mutation/cache.json)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        mutation = load_mutation_cache(layout.path(layout.cache))
        self.side = TestSide(layout, test_root_files(layout), mutation.rows_read)
        coverage = {name: entry.covered_by for name, entry in mutation.functions.items()}
        self.implementation = Implementation(layout, coverage)
        self.sources: dict[Path, dict[str, str]] = {}

    def row(self, row_id: str, covered_by: Iterable[str]) -> str:
        """A row's key: the implementation its bound files' tests run, and those files with the rows
        they read and its own."""
        files = list(covered_by)
        return digest("row", self.implementation.hash(files), self.side.hash(files, rows=[row_id]))

    def source(self, path: Path, qualname: str) -> str:
        """The function's source hash, or its whole file's for a function nested deeper than a method."""
        if path not in self.sources:
            self.sources[path] = source_hashes(path.read_text(encoding="utf-8"))
        owner, _, name = qualname.rpartition(".")
        mangled = f"x{CLASS_SEPARATOR}{owner}{CLASS_SEPARATOR}{name}" if owner else f"x_{name}"
        return self.sources[path].get(mangled) or file_hash(path)

    def function(self, path: Path, qualname: str, covered_by: Iterable[str]) -> str:
        module = ".".join(path.relative_to(self.layout.path("src")).with_suffix("").parts)
        texts = self.layout.reads_spec_text(f"{module}.{qualname}")
        return digest("function", self.source(path, qualname), self.side.hash(covered_by, texts))


def standing(entry: Entry | None, key: str, changes: Sequence[str]) -> bool:
    """Whether an entry's verdicts hold for today's mutants, given today's key for its files."""
    return (
        entry is not None
        and entry.key == key
        and entry.mutants == len(changes)
        and set(entry.not_killed) <= set(changes)
    )


def entry_of(key: str, covered_by: Iterable[str], tests: int, verdicts: Mapping[str, str]) -> Entry | None:
    """The entry recording a fresh run's verdicts (change -> status), or None when one did not run."""
    if NOT_RUN in verdicts.values():
        return None
    not_killed = {change: status for change, status in verdicts.items() if status != KILLED}
    return Entry(key, tuple(sorted(set(covered_by))), tests, len(verdicts), not_killed)


def merged(parts: Sequence[Cache]) -> Cache:
    """The shards' caches as one: each row and function from exactly one part, all of one environment."""
    if len({part.environment for part in parts}) > 1:
        raise SystemExit("spec-mutation: the parts to merge were run in different environments")
    whole = Cache(parts[0].environment if parts else "")
    for part in parts:
        for mine, theirs in ((whole.rows, part.rows), (whole.functions, part.functions)):
            twice = sorted(set(mine) & set(theirs))
            if twice:
                raise SystemExit(f"spec-mutation: {twice[0]} is in two of the parts to merge")
            mine.update(theirs)
    return whole


# --- the file -------------------------------------------------------------------------------------


def load(path: Path) -> Cache:
    """The cache file, or an empty cache when there is none (or it has another format)."""
    if not path.exists():
        return Cache()
    document = json.loads(path.read_bytes())
    if document.get("format") != FORMAT:
        return Cache()
    groups: dict[str, list[str]] = document["coverage"]

    def entries(part: str) -> dict[str, Entry]:
        return {
            name: Entry(
                item["key"],
                tuple(groups[item["covered_by"]]),
                item["tests"],
                item["mutants"],
                dict(item.get("not_killed", {})),
            )
            for name, item in document[part].items()
        }

    return Cache(document["environment"], entries("rows"), entries("functions"))


def dumps(cache: Cache) -> str:
    """Deterministic JSON, one line per coverage set and per entry: an edit changes only its lines."""
    groups: dict[str, list[str]] = {}

    def one(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    def item(entry: Entry) -> dict[str, Any]:
        files = sorted(entry.covered_by)
        group = hashlib.sha256("\0".join(files).encode()).hexdigest()[:10]
        groups[group] = files
        found: dict[str, Any] = {
            "key": entry.key,
            "covered_by": group,
            "tests": entry.tests,
            "mutants": entry.mutants,
        }
        return {**found, "not_killed": entry.not_killed} if entry.not_killed else found

    parts: dict[str, Mapping[str, Any]] = {
        "rows": {name: item(entry) for name, entry in sorted(cache.rows.items())},
        "functions": {name: item(entry) for name, entry in sorted(cache.functions.items())},
    }
    lines = ["{", f' "format": {FORMAT},', f' "environment": {one(cache.environment)},']
    for name, items in [("coverage", groups), *parts.items()]:  # groups is filled by item()
        rows = [f"  {one(key)}: {one(items[key])}" for key in sorted(items)]
        lines.append(f" {one(name)}: {{")
        lines.extend(row + ("," if index < len(rows) - 1 else "") for index, row in enumerate(rows))
        lines.append(" }" + ("" if name == "functions" else ","))
    return "\n".join([*lines, "}"]) + "\n"


def save(cache: Cache, path: Path) -> None:
    path.write_text(dumps(cache), encoding="utf-8")
