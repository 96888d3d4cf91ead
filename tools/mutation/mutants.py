"""Today's mutants, each named by what survives an edit elsewhere: its function and its own change.

mutmut names a mutant by its position in the function (`contracts.core.value.xǁValueǁ__add____mutmut_3`):
an edit above it renumbers the mutants below, so a reviewed entry keyed by that name may come to
excuse a different mutant. Here a mutant is keyed by

* its function, dotted: `contracts.core.value.Value.__add__` (a method) or `contracts.core.checks.exact_int`;
* its change: the lines of the function that differ between mutmut's `__mutmut_orig` copy and the
  mutant, both written by ast.unparse (so comments and formatting never enter a key: one statement is
  one line, quotes and spacing are unparse's), removed lines first (`- return a + b`, `+ return a - b`).
  When a function holds the same change twice (two identical lines mutated alike), the second and
  later ones say which occurrence they are (`... [2]`), in mutmut's order.

The key changes only when the code of the mutated statement changes (its syntax, not its layout), as
the source hash (`source_hash`, the function's AST) does. The enumeration runs
mutmut's own mutation code on the source (no tests run), so it lists exactly the mutants `mutmut run`
would make, with mutmut's name and a hash of the function's source (`source_hash`).

    python -m tools.mutation.mutants [PATH...]    # every mutant of src/contracts (or of the files)
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import os
import sys
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path("src/contracts")
# the spec suite is test code: it runs against every mutant and is never mutated itself
# (pyproject's [tool.mutmut] do_not_mutate says the same to mutmut)
UNMUTATED = ("spec_suite",)
CLASS_SEPARATOR = "ǁ"  # mutmut's: xǁClassǁmethod
MUTANT_SEPARATOR = "__mutmut_"
POOL_FROM = 8  # fewer files are enumerated in this process: starting workers would cost more


@dataclass(frozen=True, order=True)
class Mutant:
    """One mutant of today's code."""

    function: str  # dotted: module.function or module.Class.method
    change: str  # the differing lines, `- old` then `+ new`, one per line
    name: str  # mutmut's name of it today
    source_hash: str  # the function's source (and the module and class statements around it)

    @property
    def key(self) -> tuple[str, str]:
        return self.function, self.change

    @property
    def module(self) -> str:
        return self.name.rpartition(".")[0]  # mutmut's mangled names hold no dot


def mutated_files(source: Path = SOURCE) -> list[Path]:
    """The Python files under source that mutation changes: all but the spec suite's, sorted."""
    return sorted(
        path for path in source.rglob("*.py") if not set(UNMUTATED) & set(path.relative_to(source).parts)
    )


def module_name(path: Path) -> str:
    """The module a file under src/ defines, as mutmut names it (a package's __init__ is the package)."""
    parts = list(path.with_suffix("").parts)
    if "src" in parts:
        parts = parts[parts.index("src") + 1 :]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def dotted(module: str, mangled: str) -> str:
    """mutmut's mangled function name (`x_f`, `xǁClassǁm`) as a dotted name under module."""
    if mangled.startswith("x" + CLASS_SEPARATOR):
        owner, _, method = mangled[2:].partition(CLASS_SEPARATOR)
        return f"{module}.{owner}.{method}"
    return f"{module}.{mangled.removeprefix('x_')}"


def change_of(original: Sequence[str], mutant: Sequence[str]) -> str:
    """The lines that differ: the common first and last lines stripped, what remains of each side."""
    head = 0
    while head < min(len(original), len(mutant)) and original[head] == mutant[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(original), len(mutant)) - head
        and original[len(original) - 1 - tail] == mutant[len(mutant) - 1 - tail]
    ):
        tail += 1
    removed = original[head : len(original) - tail]
    added = mutant[head : len(mutant) - tail]
    return "\n".join([*(f"- {line}" for line in removed), *(f"+ {line}" for line in added)])


def context(statements: Iterable[ast.stmt]) -> str:
    """The statements around functions that their behaviour may read: assignments and everything
    else but imports, function definitions, classes and docstrings."""
    kept = []
    for statement in statements:
        if isinstance(statement, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if isinstance(statement, ast.ClassDef):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue
        kept.append(ast.dump(statement))
    return "\n".join(kept)


def source_hashes(code: str) -> dict[str, str]:
    """mangled function name -> hash of its AST (formatting and comments aside), with the module's
    own statements (and, for a method, its class's bases, decorators and attributes)."""
    tree = ast.parse(code)
    module_context = context(tree.body)
    found: dict[str, str] = {}

    def digest(node: ast.AST, *around: str) -> str:
        text = "\0".join([ast.dump(node), module_context, *around])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[f"x_{node.name}"] = digest(node)
        elif isinstance(node, ast.ClassDef):
            header = ast.dump(ast.ClassDef(node.name, node.bases, node.keywords, [], node.decorator_list))
            around = context(node.body)
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    key = f"x{CLASS_SEPARATOR}{node.name}{CLASS_SEPARATOR}{member.name}"
                    found[key] = digest(member, header, around)
    return found


def unparsed(text: Sequence[str], generated: str, mangled: str) -> list[str]:
    """A generated function's lines as ast.unparse writes them (no comments, one formatting), named
    as the original."""
    tree = ast.parse(textwrap.dedent("\n".join(text)))
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
    function.name = mangled
    return [line.strip() for line in ast.unparse(function).splitlines()]


def file_mutants(path: Path) -> list[Mutant]:
    """Every mutant mutmut makes of one file, in mutmut's order."""
    from mutmut.mutation.file_mutation import mutate_file_contents

    code = path.read_text(encoding="utf-8")
    mutated = mutate_file_contents(str(path), code)
    lines = mutated.code.splitlines()
    spans = mutated.line_span_by_function_name
    hashes = source_hashes(code)
    module = module_name(path)

    def body(generated: str, mangled: str) -> list[str]:
        span = spans[generated]
        return unparsed(lines[span.start - 1 : span.end], generated, mangled)

    found: list[Mutant] = []
    seen: dict[tuple[str, str], int] = {}
    originals: dict[str, list[str]] = {}
    for generated in mutated.mutant_names:
        mangled = generated.rpartition(MUTANT_SEPARATOR)[0]
        if mangled not in originals:
            originals[mangled] = body(f"{mangled}__mutmut_orig", mangled)
        change = change_of(originals[mangled], body(generated, mangled))
        function = dotted(module, mangled)
        count = seen.get((function, change), 0) + 1
        seen[(function, change)] = count
        if count > 1:
            change = f"{change} [{count}]"
        found.append(Mutant(function, change, f"{module}.{generated}", hashes[mangled]))
    return found


def in_project(root: Path) -> None:
    """Work from the project's root: mutmut reads its configuration (do_not_mutate_patterns) there."""
    from mutmut.configuration import reset_config

    os.chdir(root)
    reset_config()


def package_mutants(files: Sequence[Path], root: Path = Path("."), workers: int = 2) -> list[Mutant]:
    """Every mutant of the files (paths relative to root), file by file, as mutmut makes them when run
    from root."""
    paths = list(files)
    if workers <= 1 or len(paths) <= POOL_FROM:
        with contextlib.chdir(root):
            in_project(Path("."))
            found = [mutant for path in paths for mutant in file_mutants(path)]
        in_project(Path("."))  # the configuration of where this process works again
        return found
    with ProcessPoolExecutor(max_workers=workers, initializer=in_project, initargs=(root.resolve(),)) as pool:
        return [mutant for found in pool.map(file_mutants, paths) for mutant in found]


def functions(mutants: Iterable[Mutant]) -> dict[str, list[Mutant]]:
    """function -> its mutants, in mutmut's order."""
    grouped: dict[str, list[Mutant]] = {}
    for mutant in mutants:
        grouped.setdefault(mutant.function, []).append(mutant)
    return grouped


def lines(mutants: Iterable[Mutant]) -> Iterator[str]:
    for mutant in mutants:
        change = mutant.change.replace("\n", " | ")
        yield f"{mutant.name}\t{mutant.function}\t{mutant.source_hash}\t{change}"


def main(argv: Sequence[str] | None = None) -> int:
    paths = [Path(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    for line in lines(package_mutants(paths or mutated_files())):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# --- what mutmut never mutates --------------------------------------------------------------------

UNMUTATED_DECORATORS = frozenset({"staticmethod", "classmethod"})


def decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return target.attr if isinstance(target, ast.Attribute) else ast.unparse(target)


def is_delegation(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True when the body is only `return <name, attribute or plain call>` (after a docstring), or, for a
    wrapper that must be a generator (a pytest hook wrapper), `name = yield` then such a return."""
    body = list(function.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if (
        len(body) == 2
        and isinstance(body[0], ast.Assign)
        and isinstance(body[0].value, ast.Yield)
        and body[0].value.value is None
        and [type(target) for target in body[0].targets] == [ast.Name]
    ):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return False
    value = body[0].value
    if isinstance(value, ast.Call):
        arguments = [*value.args, *(k.value for k in value.keywords)]
        return all(isinstance(a, ast.Name | ast.Attribute | ast.Constant) for a in arguments)
    return isinstance(value, ast.Name | ast.Attribute)


def blind_spots(paths: Iterable[Path]) -> list[str]:
    """`file:line function` of every decorated function (but static and class methods) that does more
    than delegate: mutmut never mutates a decorated function, so its logic is never tested by mutation."""
    found: list[str] = []
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_bytes())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            names = {decorator_name(d) for d in node.decorator_list}
            if names - UNMUTATED_DECORATORS and not is_delegation(node):
                found.append(f"{path}:{node.lineno} {node.name}")
    return found
