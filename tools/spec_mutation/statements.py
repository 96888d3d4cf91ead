"""Statement mutants mutmut has no operator for: delete one guard, swap two consecutive guards.

A guard is an `if ...:` whose block ends in `raise` (and has no else), or a bare call of a check
function (a name starting with `check` or `require`, or one imported from contracts.core.checks). The
mutants are text edits of the module (the guard's lines become `pass`, or two guards' lines trade
places), so the rest of the file is untouched. A mutant is keyed by its function (dotted, as mutmut's
are: `contracts.core.linear.Linear.current_refs`) and its change (`delete `if x < 0:``, `swap `a` and
`b``; the second of two identical changes in one function says so: `... [2]`), never by a line or a
position, so an edit elsewhere keeps the key. Within one run a mutant also has a positional id.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.mutation.mutants import mutated_files

CHECK_PREFIXES = ("check", "require")
CHECKS_MODULE = "contracts.core.checks"


@dataclass(frozen=True)
class StatementMutant:
    """One edit of one function: the mutated module text, and where the function lives."""

    module: str
    qualname: str
    operator: str
    index: int
    description: str
    path: Path
    source: str

    change: str = ""  # the description, with its occurrence when the function holds it twice

    def mutant_id(self) -> str:
        return f"{self.module}:{self.qualname}:{self.operator}:{self.index}"

    @property
    def function(self) -> str:
        return f"{self.module}.{self.qualname}"


def checks_names(tree: ast.Module) -> frozenset[str]:
    """Names this module imports from contracts.core.checks (and the module alias itself)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == CHECKS_MODULE:
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == CHECKS_MODULE.rpartition(".")[0]:
            names.update(alias.asname or alias.name for alias in node.names if alias.name == "checks")
    return frozenset(names)


def called_name(call: ast.Call) -> tuple[str, str]:
    """(object name or '', function name) of a call of a name or of an attribute of a name."""
    function = call.func
    if isinstance(function, ast.Name):
        return "", function.id
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
        return function.value.id, function.attr
    return "", ""


def is_guard(statement: ast.stmt, checks: frozenset[str]) -> bool:
    if isinstance(statement, ast.If):
        return not statement.orelse and isinstance(statement.body[-1], ast.Raise)
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        owner, name = called_name(statement.value)
        return name.startswith(CHECK_PREFIXES) or name in checks or owner in checks
    return False


def blocks(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[list[ast.stmt]]:
    """Every statement list of the function's own body (not of functions or classes nested in it)."""
    pending: list[list[ast.stmt]] = [function.body]
    while pending:
        block = pending.pop(0)
        yield block
        for statement in block:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            for name in ("body", "orelse", "finalbody"):  # statement lists (maybe empty: no guard)
                inner = getattr(statement, name, None)
                if isinstance(inner, list):
                    pending.append(inner)
            pending.extend(handler.body for handler in getattr(statement, "handlers", []))


def functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, node) of every function and method, classes nested included."""
    pending: list[tuple[str, ast.AST]] = [("", tree)]
    while pending:
        prefix, node = pending.pop(0)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + child.name, child
            elif isinstance(child, ast.ClassDef):
                pending.append((f"{prefix}{child.name}.", child))


def lines_of(statement: ast.stmt) -> tuple[int, int]:
    """0-based [start, stop) line range of a statement."""
    assert statement.end_lineno is not None
    return statement.lineno - 1, statement.end_lineno


def deleted(lines: Sequence[str], statement: ast.stmt) -> str:
    start, stop = lines_of(statement)
    indent = " " * statement.col_offset
    return "".join([*lines[:start], f"{indent}pass  # spec-mutation: guard deleted\n", *lines[stop:]])


def swapped(lines: Sequence[str], first: ast.stmt, second: ast.stmt) -> str:
    (a, b), (c, d) = lines_of(first), lines_of(second)
    return "".join([*lines[:a], *lines[c:d], *lines[b:c], *lines[a:b], *lines[d:]])


def summary(statement: ast.stmt) -> str:
    return ast.unparse(statement).splitlines()[0]


def module_mutants(path: Path, module: str) -> list[StatementMutant]:
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    checks = checks_names(tree)
    found: list[StatementMutant] = []
    for qualname, function in functions(tree):
        deletions = swaps = 0
        for block in blocks(function):
            for position, statement in enumerate(block):
                if not is_guard(statement, checks):
                    continue
                found.append(
                    StatementMutant(
                        module,
                        qualname,
                        "delete",
                        deletions,
                        f"delete `{summary(statement)}`",
                        path,
                        deleted(lines, statement),
                    )
                )
                deletions += 1
                following = block[position + 1] if position + 1 < len(block) else None
                if following is not None and is_guard(following, checks):
                    found.append(
                        StatementMutant(
                            module,
                            qualname,
                            "swap",
                            swaps,
                            f"swap `{summary(statement)}` and `{summary(following)}`",
                            path,
                            swapped(lines, statement, following),
                        )
                    )
                    swaps += 1
    return keyed(found)


def keyed(found: Sequence[StatementMutant]) -> list[StatementMutant]:
    """The mutants with their change: the description, `[n]` added to the n-th repeat in a function."""
    seen: dict[tuple[str, str], int] = {}
    result: list[StatementMutant] = []
    for mutant in found:
        count = seen.get((mutant.qualname, mutant.description), 0) + 1
        seen[(mutant.qualname, mutant.description)] = count
        change = mutant.description if count == 1 else f"{mutant.description} [{count}]"
        result.append(dataclasses.replace(mutant, change=change))
    return result


def source_mutants(root: Path, package: str) -> list[StatementMutant]:
    """Every statement mutant of every module under root/package, in path order."""
    found: list[StatementMutant] = []
    for path in mutated_files(root / package):
        relative = path.relative_to(root).with_suffix("")
        parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
        found.extend(module_mutants(path, ".".join(parts)))
    return found
