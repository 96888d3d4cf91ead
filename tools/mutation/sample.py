"""A deterministic sample of the mutation run, small enough to gate every CI run.

The whole run (every mutant of src/contracts) takes hours on two cores, so CI mutates a sample of the
source *functions*: a function is in the sample when the hash of (seed, its mutmut name) falls below
the percentage, so the same seed and source always give the same sample, a new function is as likely
to be drawn as any other, and each seed draws another sample. Every mutant of a sampled function is
run and gated exactly like the whole run's (score, listed equivalents and pending, unfinished); the
rest is left to the census (`tox -e mutation -- --sample 100`, or its shards in
`tools.mutation.shards`). Sampling whole functions estimates the score without bias, and the
estimate's spread is stated with the score.
"""

from __future__ import annotations

import ast
import hashlib
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

from tools.mutation.gate import UNMUTATED_DECORATORS, decorator_name, load_equivalents
from tools.mutation.shards import read_verdicts, source_modules, status_of
from tools.spec_mutation import tomlwriter

MUTANT_SEPARATOR = "__mutmut_"  # mutmut names a mutant <function name>__mutmut_<n>


def function_names(module: str, path: Path) -> list[str]:
    """mutmut's names of the functions it mutates in one module: `<module>.x_<function>` and
    `<module>.xǁ<Class>ǁ<method>` (decorated functions, except static and class methods, are skipped
    as mutmut skips them)."""
    found: list[str] = []
    for node in ast.parse(path.read_bytes()).body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        for member in members:
            if not isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if {decorator_name(d) for d in member.decorator_list} - UNMUTATED_DECORATORS:
                continue
            owner = node.name if isinstance(node, ast.ClassDef) else ""
            found.append(mutmut_name(module, owner, member.name))
    return found


def mutmut_name(module: str, owner: str, function: str) -> str:
    """mutmut's name of a function (owner empty) or a method: `module.x_f`, `module.xǁClassǁmethod`."""
    return f"{module}.xǁ{owner}ǁ{function}" if owner else f"{module}.x_{function}"


def all_functions(source: Path) -> list[str]:
    """Every mutated function of the package under source, sorted."""
    names = [name for module, path in source_modules(source).items() for name in function_names(module, path)]
    return sorted(names)


def drawn(name: str, seed: str, percent: float) -> bool:
    """Whether the function is in the sample: its hash with the seed, as a fraction of 2**64, is below
    the percentage."""
    digest = hashlib.sha256(f"{seed}\0{name}".encode()).digest()
    return int.from_bytes(digest[:8]) < percent / 100 * 2**64  # big-endian, Python's default


def sample(functions: Iterable[str], seed: str, percent: float) -> list[str]:
    return [name for name in functions if drawn(name, seed, percent)]


def patterns(functions: Iterable[str]) -> list[str]:
    """The mutmut name patterns selecting exactly the sampled functions' mutants."""
    return [f"{name}{MUTANT_SEPARATOR}*" for name in functions]


def function_of(mutant: str) -> str:
    return mutant.rpartition(MUTANT_SEPARATOR)[0]


def sample_verdicts(mutants: Path, source: Path, functions: Iterable[str]) -> dict[str, int | None]:
    """The exit code of every mutant of the sampled functions, read from mutmut's mutants/ directory."""
    chosen = set(functions)
    found: dict[str, int | None] = {}
    for module, path in source_modules(source).items():
        # mutmut writes no results file for a module it made no mutant in
        if (mutants / f"{path.as_posix()}.meta").exists():
            codes = read_verdicts(mutants, module, path)
            found.update((name, code) for name, code in codes.items() if function_of(name) in chosen)
    return found


def listed_in(path: Path, functions: Iterable[str]) -> dict[str, str]:
    """The listed mutants (equivalents or pending) of the sampled functions only: a listed mutant of a
    function outside the sample is not judged by this run."""
    chosen = set(functions)
    return {name: reason for name, reason in load_equivalents(path).items() if function_of(name) in chosen}


def listing(entries: Mapping[str, str]) -> str:
    """entries as the reviewed-list TOML the gate reads (empty: no entry)."""
    mutants = [{"name": name, "reason": why} for name, why in entries.items()]
    return tomlwriter.dumps({"mutant": mutants}) if mutants else ""


def spread(verdicts: Mapping[str, int | None]) -> str:
    """The score's standard error over the sampled functions (each function's mutants are one cluster)."""
    by_function: dict[str, list[bool]] = {}
    for name, code in verdicts.items():
        by_function.setdefault(function_of(name), []).append(status_of(code) in ("killed", "timeout"))
    clusters = [(sum(caught), len(caught)) for caught in by_function.values()]
    count = len(clusters)
    if count < 2:  # every cluster holds at least one mutant, so two clusters hold two
        return "n/a (fewer than two sampled functions with mutants)"
    total = sum(size for _, size in clusters)
    ratio = sum(caught for caught, _ in clusters) / total
    mean_size = total / count
    residuals = sum((caught - ratio * size) ** 2 for caught, size in clusters)
    error = math.sqrt(residuals / (count - 1) / count) / mean_size
    return f"±{error:.2%} (one standard error, {count} functions)"
