"""How much of each committed mutation cache an edit makes stale.

    python -m tools.mutation.staleness [--row ID] [--function DOTTED] [--markdown]

Each edit is made in a scratch copy of the project (the checkout is never touched):

  none       nothing changed: what is stale already
  comment    a comment line added at the end of the first spec file
  example    one example value of one row raised by one (--row, default S05.cost.dot)
  function   one function's body changed: a statement added at its end (--function, default
             contracts.core.checks.exact_int)

and for each it prints what goes stale: the mutmut cache's functions and their mutants
(tools.mutation.cache.plan), and the spec-mutation cache's rows and guarded functions whose key
changes (tools.spec_mutation.cache.Keys), or "all" when the environment hash changed. --markdown
prints a dated table instead (docs/measurements/staleness.md).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tools.docs import table
from tools.mutation import cache as mutation_cache
from tools.mutation.__main__ import today_of
from tools.mutation.cache import Layout
from tools.spec_mutation import cache as spec_cache

COPIED = ("src", "tests", "tools", "pyproject.toml")
IGNORED = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.pyc", "mutants")


@dataclass(frozen=True)
class Staleness:
    """What one edit makes stale in the two caches."""

    functions: int  # mutmut cache: functions whose mutants all run again
    mutants: int  # ... and those mutants
    total_mutants: int
    rows: int | None  # spec-mutation cache: rows whose key changed (None: the environment did: all)
    guarded: int | None  # ... guarded functions whose key changed
    total_rows: int
    total_guarded: int


def copy_project(layout: Layout, into: Path) -> Layout:
    """The files the caches read (the layout's source, test roots and specs, tools/, pyproject.toml)
    copied under into: the same layout, rooted there."""
    into.mkdir(parents=True, exist_ok=True)
    for name in sorted({*COPIED, *layout.test_roots, *layout.specs}):
        source = layout.path(name)
        if (into / name).exists():
            continue  # inside a directory already copied
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=IGNORED)
        elif source.is_file():
            shutil.copy2(source, into / name)
    return replace(layout, root=into)


def add_comment(layout: Layout) -> None:
    first = sorted(layout.path(layout.specs[0]).glob("*.toml"))[0]
    first.write_text(first.read_text(encoding="utf-8") + "# a comment: says nothing\n", encoding="utf-8")


def change_example(layout: Layout, row: str) -> None:
    """The first `value = N` after the row's id line becomes N + 1."""
    for path in sorted(layout.path(layout.specs[0]).glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        start = text.find(f'id = "{row}"')
        if start < 0:
            continue
        found = re.compile(r"value = (-?\d+)").search(text, start)
        if found is None:
            raise SystemExit(f"staleness: row {row} has no integer example value")
        raised = f"value = {int(found.group(1)) + 1}"
        path.write_text(text[: found.start()] + raised + text[found.end() :], encoding="utf-8")
        return
    raise SystemExit(f"staleness: no spec row {row}")


def source_of(layout: Layout, dotted: str) -> tuple[Path, list[str]]:
    """The file defining a dotted function and the rest of its name (class, function)."""
    parts = dotted.split(".")
    for end in range(len(parts) - 1, 0, -1):
        stem = layout.path("src") / Path(*parts[:end])
        for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
            if candidate.is_file():
                return candidate, parts[end:]
    raise SystemExit(f"staleness: no source file defines {dotted}")


def change_function(layout: Layout, dotted: str) -> None:
    """A statement (`pass`) added after the function's last line, at its body's indentation."""
    path, names = source_of(layout, dotted)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    scope: Sequence[ast.stmt] = ast.parse("".join(lines)).body
    found: ast.FunctionDef | None = None
    for name in names:
        node = next((n for n in scope if getattr(n, "name", None) == name), None)
        if node is None:
            raise SystemExit(f"staleness: {dotted} not found in {path}")
        found = node if isinstance(node, ast.FunctionDef) else None
        scope = getattr(node, "body", [])
    if found is None or found.end_lineno is None:
        raise SystemExit(f"staleness: {dotted} is not a function")
    indent = " " * found.body[0].col_offset
    lines.insert(found.end_lineno, f"{indent}pass\n")
    path.write_text("".join(lines), encoding="utf-8")


def measure(layout: Layout) -> Staleness:
    today = today_of(layout)
    files = mutation_cache.test_root_files(layout)
    loaded = mutation_cache.load(layout.path(layout.cache))
    planned = mutation_cache.plan(loaded, today, layout, files, mutation_cache.environment_hash(layout))
    stale_mutants = sum(len(today[function]) for function in planned.stale)
    specs = spec_cache.load(layout.path(spec_cache.CACHE.as_posix()))
    rows = guarded = None
    if specs.environment == spec_cache.environment_hash(layout):
        keys = spec_cache.Keys(layout)
        rows = sum(entry.key != keys.row(row_id, entry.covered_by) for row_id, entry in specs.rows.items())
        guarded = 0
        for name, entry in specs.functions.items():
            path, names = source_of(layout, name)
            guarded += entry.key != keys.function(path, ".".join(names), entry.covered_by)
    return Staleness(
        len(planned.stale),
        stale_mutants,
        sum(len(mutants) for mutants in today.values()),
        rows,
        guarded,
        len(specs.rows),
        len(specs.functions),
    )


EDITS = {
    "none": "nothing",
    "comment": "a comment added to a spec file",
    "example": "one example value of {row} changed",
    "function": "the body of {function} changed",
}


def cells(found: Staleness) -> list[str]:
    rows = "all (environment)" if found.rows is None else f"{found.rows} of {found.total_rows}"
    guarded = "all" if found.guarded is None else f"{found.guarded} of {found.total_guarded}"
    return [f"{found.functions} ({found.mutants} of {found.total_mutants} mutants)", rows, guarded]


def line(name: str, found: Staleness) -> str:
    rows = "all (environment)" if found.rows is None else f"{found.rows} of {found.total_rows}"
    guarded = "all" if found.guarded is None else f"{found.guarded} of {found.total_guarded}"
    return (
        f"{name}: mutmut {found.functions} functions ({found.mutants} of {found.total_mutants} mutants) "
        f"stale; spec mutation: rows {rows}, guarded functions {guarded} stale"
    )


def main(argv: Sequence[str] | None = None, root: Path = Path(".")) -> int:
    made = argparse.ArgumentParser(prog="python -m tools.mutation.staleness", description=__doc__)
    made.add_argument("--row", default="S05.cost.dot")
    made.add_argument("--function", default="contracts.core.checks.exact_int")
    made.add_argument("--markdown", action="store_true", help="a dated markdown table")
    options = made.parse_args(argv)
    edits: dict[str, Callable[[Layout], None]] = {
        "none": lambda layout: None,
        "comment": add_comment,
        "example": lambda layout: change_example(layout, options.row),
        "function": lambda layout: change_function(layout, options.function),
    }
    rows: list[list[str]] = []
    for name, edit in edits.items():
        with tempfile.TemporaryDirectory(prefix="contracts-staleness-") as scratch:
            layout = copy_project(Layout(root=root), Path(scratch))
            edit(layout)
            found = measure(layout)
        if options.markdown:
            rows.append([EDITS[name].format(row=options.row, function=options.function), *cells(found)])
        else:
            print(line(name, found), flush=True)
    if options.markdown:
        header = ["edit", "mutmut: stale functions", "spec mutation: stale rows", "stale guarded functions"]
        print(f"Measured {datetime.date.today().isoformat()} with `python -m tools.mutation.staleness`:\n")
        print(table(header, rows), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
