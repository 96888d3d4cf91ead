"""The mutation gate: mutmut measures whether the tests can fail; this module makes CI act on it.

score = (killed + timeout) / (total - skipped), as `mutmut badge` computes it, so mutants with no
covering test count against the score. Every surviving mutant must be killed or listed, with the
reason it is equivalent, in tools/mutation/equivalents.toml; a listed mutant that no longer exists fails
the gate, and one that tests now kill is reported so the list can shrink. Functions mutmut cannot
mutate (decorated by anything but staticmethod or classmethod) are reported, and fail the gate when
they hold logic.

What the gate does with each status `mutmut results` prints:
  killed, timeout, caught by type check   the tests (or mypy) caught it: nothing to do
  survived, no tests, suspicious, segfault  fails the gate unless listed with a reason
  skipped                                  mutmut did not run it (outside the score): nothing to do
  not checked, check was interrupted       the run did not finish: fails the gate, listed or not

A survivor that is *not* equivalent but not killed yet may be listed in tools/mutation/pending.toml, with
what it is and why it waits: the gate passes it (the score still counts it as not killed, and the
threshold still applies), prints it as PENDING, and fails once it no longer exists. Pending is a
debt in plain view, never an equivalence claim.

Run after `mutmut run` and `mutmut export-cicd-stats`:  python -m tools.mutation.gate
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

THRESHOLD = 0.95
GOAL = 0.98
STATS = Path("mutants/mutmut-cicd-stats.json")
EQUIVALENTS = Path("tools/mutation/equivalents.toml")
PENDING = Path("tools/mutation/pending.toml")
SOURCE = Path("src/contracts")
# the spec suite is test code: it runs against every mutant and is never mutated itself
# (pyproject's [tool.mutmut] do_not_mutate says the same to mutmut)
UNMUTATED = ("spec_suite",)


def mutated_files(source: Path) -> list[Path]:
    """The Python files under source that mutation changes: all but the spec suite's, sorted."""
    return sorted(
        path for path in source.rglob("*.py") if not set(UNMUTATED) & set(path.relative_to(source).parts)
    )


UNMUTATED_DECORATORS = frozenset({"staticmethod", "classmethod"})
NOT_KILLED = ("survived", "no tests", "suspicious", "segfault")
UNFINISHED = ("not checked", "check was interrupted by user")
# mutmut (and the statement mutants) fork a child per mutant from a process that has run torch: a
# forked child waits forever on the parent's OpenMP/MKL worker threads (measured: torch_engine's
# mutants all hung until mutmut's timeout, which counts a timeout as caught). One thread each: the
# children run the same ops without a pool.
FORK_SAFE_THREADS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def score(stats: Mapping[str, int]) -> float:
    """(killed + timeout) / (total - skipped); 1.0 when nothing could be mutated."""
    mutated = stats["total"] - stats["skipped"]
    if mutated <= 0:
        return 1.0
    return (stats["killed"] + stats["timeout"]) / mutated


STATUSES = frozenset(
    {"killed", "survived", "no tests", "timeout", "suspicious", "skipped", "segfault", "caught by type check"}
) | frozenset(UNFINISHED)


RESULT_LINE = re.compile(r"\s*(\S+): (.+?)\s*")


def parse_results(text: str) -> dict[str, str]:
    """mutant name -> status, from `mutmut results` lines `name: status`."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = RESULT_LINE.fullmatch(line)
        if match and match[2] in STATUSES:
            found[match[1]] = match[2]
    return found


def load_equivalents(path: Path) -> dict[str, str]:
    """mutant name -> the reviewed reason it cannot be killed."""
    if not path.exists():
        return {}
    with path.open("rb") as file:
        document = tomllib.load(file)
    listed: dict[str, str] = {}
    for entry in document.get("mutant", []):
        reason = str(entry.get("reason", "")).strip()
        if not reason:
            raise ValueError(f"{path}: mutant {entry.get('name')!r} is listed without a reason")
        listed[str(entry["name"])] = reason
    return listed


def decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return target.attr if isinstance(target, ast.Attribute) else ast.unparse(target)


def is_delegation(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True when the body is only `return <name, attribute or plain call>` (after a docstring)."""
    body = list(function.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return False
    value = body[0].value
    if isinstance(value, ast.Call):
        arguments = [*value.args, *(k.value for k in value.keywords)]
        return all(isinstance(a, ast.Name | ast.Attribute | ast.Constant) for a in arguments)
    return isinstance(value, ast.Name | ast.Attribute)


def blind_spots(paths: Iterable[Path]) -> list[tuple[str, bool]]:
    """(file:line function, holds logic) for every function mutmut will not mutate."""
    found: list[tuple[str, bool]] = []
    for path in sorted(paths):
        tree = ast.parse(path.read_bytes())
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            names = {decorator_name(d) for d in node.decorator_list}
            if names - UNMUTATED_DECORATORS:
                found.append((f"{path}:{node.lineno} {node.name}", not is_delegation(node)))
    return found


def problems(
    stats: Mapping[str, int],
    results: Mapping[str, str],
    equivalents: Mapping[str, str],
    spots: Sequence[tuple[str, bool]],
    threshold: float,
    pending: Mapping[str, str] | None = None,
) -> list[str]:
    """Every reason the gate fails, one line each; empty when it passes."""
    waiting = pending or {}
    lines: list[str] = []
    value = score(stats)
    if value < threshold:
        lines.append(f"score {value:.2%} is below the threshold {threshold:.0%}")
    not_killed = {name for name, status in results.items() if status in NOT_KILLED}
    lines.extend(
        f"unexplained {results[name]} mutant: {name} (kill it, or list it in {EQUIVALENTS} with a reason)"
        for name in sorted(not_killed - set(equivalents) - set(waiting))
    )
    lines.extend(
        f"mutant {results[name]}: {name}; the mutmut run did not finish, run it again"
        for name in sorted(results)
        if results[name] in UNFINISHED
    )
    lines.extend(
        f"listed mutant no longer exists: {name}; remove it from {EQUIVALENTS}"
        for name in sorted(set(equivalents) - set(results))
    )
    lines.extend(
        f"pending mutant no longer exists: {name}; remove it from {PENDING}"
        for name in sorted(set(waiting) - set(results))
    )
    lines.extend(
        f"blind spot with logic (mutmut skips decorated functions): {where}; move the logic to a plain method"
        for where, logic in spots
        if logic
    )
    return lines


def warnings(
    results: Mapping[str, str], equivalents: Mapping[str, str], pending: Mapping[str, str] | None = None
) -> list[str]:
    """Listed mutants that tests now kill: the lists should shrink, but a kill is never a failure."""
    lines = [
        f"listed mutant is now {results[name]}: {name}; remove it from {EQUIVALENTS}"
        for name in sorted(equivalents)
        if name in results and results[name] not in (*NOT_KILLED, *UNFINISHED)
    ]
    return lines + [
        f"pending mutant is now {results[name]}: {name}; remove it from {PENDING}"
        for name in sorted(pending or {})
        if name in results and results[name] not in (*NOT_KILLED, *UNFINISHED)
    ]


def pending_lines(results: Mapping[str, str], pending: Mapping[str, str]) -> list[str]:
    """The survivors that wait for a test, with why: printed on every run so the debt stays visible."""
    return [
        f"PENDING: {results[name]} mutant {name}: {pending[name]}"
        for name in sorted(pending)
        if results.get(name) in NOT_KILLED
    ]


def report(stats: Mapping[str, int], spots: Sequence[tuple[str, bool]], threshold: float) -> str:
    counts = ", ".join(
        f"{key} {stats.get(key, 0)}"
        for key in ("killed", "timeout", "survived", "no_tests", "suspicious", "skipped", "total")
    )
    lines = [f"mutation score {score(stats):.2%} (threshold {threshold:.0%}, goal {GOAL:.0%}): {counts}"]
    lines.append(f"functions mutmut cannot mutate: {len(spots)}")
    lines.extend(f"  {where}{' (holds logic)' if logic else ''}" for where, logic in spots)
    return "\n".join(lines)


def mutmut_results() -> str:
    """The text of `mutmut results` (survivors and mutants without tests)."""
    completed = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"], capture_output=True, text=True, check=True
    )
    return completed.stdout


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stats", type=Path, default=STATS)
    parser.add_argument("--equivalents", type=Path, default=EQUIVALENTS)
    parser.add_argument("--pending", type=Path, default=PENDING)
    parser.add_argument("--results", type=Path)  # a saved `mutmut results` output; default: run it
    parser.add_argument("--source", type=Path, default=SOURCE)
    parser.add_argument("--threshold", type=float, default=THRESHOLD)
    args = parser.parse_args(argv)
    stats: dict[str, int] = json.loads(args.stats.read_bytes())
    text = args.results.read_text() if args.results else mutmut_results()
    spots = blind_spots(mutated_files(args.source))
    print(report(stats, spots, args.threshold))
    results = parse_results(text)
    equivalents = load_equivalents(args.equivalents)
    pending = load_equivalents(args.pending)
    for line in pending_lines(results, pending):
        print(line)
    for line in warnings(results, equivalents, pending):
        print(f"WARNING: {line}")
    failures = problems(stats, results, equivalents, spots, args.threshold, pending)
    for line in failures:
        print(f"FAIL: {line}")
    print("mutation gate: " + ("failed" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())


def fork_safe_environment(environment: Mapping[str, str]) -> dict[str, str]:
    """environment with the thread pools of numpy and torch at one thread (FORK_SAFE_THREADS)."""
    return {**environment, **FORK_SAFE_THREADS}
