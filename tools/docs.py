"""Regenerate the figures in the docs from the files that hold the measurements, never by hand.

    python -m tools.docs            rewrite every generated block in README.md and docs/**/*.md
    python -m tools.docs --check    exit 1 naming each file with a block out of date (a test runs this)

A generated block sits between `<!-- generated: NAME -->` and `<!-- end generated -->`; NAME picks its
source:
- `engine matrix`: the shipped adapters' pinned verdicts (tests/verify/shipped_verdicts.json, rewritten
  from fresh whole-spec reports by `python -m tests.common.pins`): version, verdict per claimed level;
- `rows by level and category`: the spec rows (specs/);
- `ci timing`: a fresh-clone CI run: tox's result file (docs/measurements/ci.json, from
  `.tox-venv/bin/tox --result-json docs/measurements/ci.json`) and the run's date, machine and wall
  time (docs/measurements/ci-run.json);
- `mutation figures`: the committed mutation cache (tools/mutation/cache.json), by package, and the
  functions tox's mutation gate judges (its `--only` prefixes in tox.ini);
- `mutmut timing`: where the last whole mutmut run's time went (docs/measurements/mutmut-timing.md,
  written by `python -m tools.mutation.timing > docs/measurements/mutmut-timing.md` after
  `python -m tools.mutation update --all`);
- `staleness`: what each kind of edit makes stale in the two mutation caches (docs/measurements/
  staleness.md, written by `python -m tools.mutation.staleness --markdown > docs/measurements/staleness.md`);
- `benchmark table`: the last benchmark run (docs/measurements/benchmarks.md, written by
  `python -m tools.benchmarks --markdown > docs/measurements/benchmarks.md`).
"""

from __future__ import annotations

import argparse
import configparser
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from contracts.spec import load_rows
from tools.mutation.gate import load_listed

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MEASUREMENTS = DOCS / "measurements"
PIN = ROOT / "tests" / "verify" / "shipped_verdicts.json"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[^>]+?) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)
LEVELS = ("values", "refusals", "contract")


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def engine_matrix() -> str:
    """Per shipped engine: its version, and per claimed level verify's verdict with that level's rows by
    status (the verdict at a level judges the rows up to it)."""
    pin = json.loads(PIN.read_text(encoding="utf-8"))
    levels = {row.id: row["level"] for row in load_rows()}
    rows = []
    for engine in pin["engines"]:
        statuses = {row_id: status for status, ids in pin[engine].items() for row_id in ids}
        cells = []
        for level in LEVELS:
            counts = Counter(status for row_id, status in statuses.items() if levels.get(row_id) == level)
            shown = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
            cells.append(f"**{pin['levels'][engine][level]}** ({shown})")
        rows.append([engine, pin["versions"].get(engine) or "-", *cells])
    note = (
        f"Pinned {pin['date']} ({pin['settings']}); `tox -e engines` checks the pin, "
        "`python -m tools.docs` rewrites this table from it.\n\n"
    )
    return note + table(["engine", "version", *(f"claim {level}" for level in LEVELS)], rows)


def rows_by_level() -> str:
    """The spec's rows counted by level and category."""
    rows = load_rows()
    categories = sorted({row["category"] for row in rows})
    counts = Counter((row["level"], row["category"]) for row in rows)
    body = [
        [
            level,
            *(str(counts[(level, c)]) for c in categories),
            str(sum(counts[(level, c)] for c in categories)),
        ]
        for level in LEVELS
    ]
    body.append(
        ["all", *(str(sum(counts[(level, c)] for level in LEVELS)) for c in categories), str(len(rows))]
    )
    return table(["level", *categories, "rows"], body)


def step_name(command: list[str]) -> str:
    """A tox command as a reader knows it: the program and what picks its work (`pytest -m engine_run`,
    `python -m tools.mutation gate`), not its paths and flags."""
    program = Path(command[0]).name
    arguments = command[1:]
    if program == "pytest":
        marker = f" -m {arguments[arguments.index('-m') + 1]}" if "-m" in arguments else ""
        coverage = ", with coverage" if any(word.startswith("--cov") for word in arguments) else ""
        return f"pytest{marker}{coverage}"
    if program.startswith("python") and "-m" in arguments:
        module = arguments[arguments.index("-m") + 1 :]
        words = [word for word in module[:2] if not word.startswith("-")]
        return " ".join(["python -m", *words])
    return " ".join([program, *(Path(word).name for word in arguments[:1])])


def ci_timing() -> str:
    """Each tox environment's time in the measured fresh-clone run (tox's result file,
    docs/measurements/ci.json), split into its setup and its commands, and the run's date, machine and
    wall time (ci-run.json)."""
    if not (MEASUREMENTS / "ci.json").is_file():
        return "Not measured yet.\n"
    result: dict[str, Any] = json.loads((MEASUREMENTS / "ci.json").read_text(encoding="utf-8"))
    run: dict[str, str] = json.loads((MEASUREMENTS / "ci-run.json").read_text(encoding="utf-8"))
    rows = []
    for name, env in result["testenvs"].items():
        if "result" not in env:  # a packaging helper (.pkg) or an environment the run did not select
            continue
        outcome = env["result"]
        steps = [("setup", sum(step["elapsed"] for step in env.get("setup", [])))]
        steps += [(step_name(step["command"]), step["elapsed"]) for step in env.get("test", [])]
        parts = "; ".join(f"{what} {seconds:.0f} s" for what, seconds in steps)
        rows.append([name, f"{outcome['duration']:.0f} s", parts, "OK" if outcome["success"] else "FAILED"])
    note = f"Measured {run['date']} on {run['where']}: the whole run took {run['wall']}.\n\n"
    return note + table(["environment", "time", "of which", "result"], rows)


def gated_prefixes(option: str = "--only") -> list[str]:
    """The prefixes given with option (--only or --except) to the mutmut gate in tox's mutation
    environment (tox.ini)."""
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    words = tox["testenv:mutation"]["commands"].split()
    return [words[index + 1] for index, word in enumerate(words[:-1]) if word == option]


def gate_scope(only: Sequence[str], skip: Sequence[str]) -> str:
    """What the CI gate judges, in words."""
    scope = f"the functions of {', '.join(f'`{p}`' for p in only)}" if only else "every function"
    return scope + (f" but those of {', '.join(f'`{p}`' for p in skip)}" if skip else "")


def mutation_figures() -> str:
    """The committed mutmut cache's verdicts by package (every mutant of every cached function, the
    listed equivalents apart), and those of the functions the CI gate judges."""
    cache_path = ROOT / "tools" / "mutation" / "cache.json"
    if not cache_path.is_file():
        return "No mutation cache yet.\n"
    functions: dict[str, Any] = json.loads(cache_path.read_text(encoding="utf-8"))["functions"]
    listed = load_listed(ROOT / "tools" / "mutation" / "equivalents.toml")
    gated, skipped = tuple(gated_prefixes()), tuple(gated_prefixes("--except"))
    packages: dict[str, Counter[str]] = {}
    every: Counter[str] = Counter()
    gate: Counter[str] = Counter()
    for name, entry in functions.items():
        owners = [packages.setdefault(".".join(name.split(".")[:2]), Counter()), every]
        if (not gated or name.startswith(gated)) and not name.startswith(skipped):
            owners.append(gate)
        for count in owners:
            count["mutants"] += entry["mutants"]
            count["functions"] += 1
            for change, status in entry.get("not_killed", {}).items():
                count["listed equivalent" if (name, change) in listed else status] += 1
    usual = ("survived", "no tests", "timeout")
    other = sorted(set(every) - {"mutants", "functions", "listed equivalent", *usual})
    statuses = (*usual, *other, "listed equivalent")
    rows = []
    for package, count in [*sorted(packages.items()), ("all", every), ("the CI gate", gate)]:
        killed = count["mutants"] - sum(count[status] for status in statuses)
        judged = count["mutants"] - count["listed equivalent"]
        score = f"{(killed + count['timeout']) / judged:.1%}" if judged else "-"
        rows.append(
            [package, str(count["functions"]), str(count["mutants"]), str(killed)]
            + [str(count[status]) for status in statuses]
            + [score]
        )
    header = ["package", "functions", "mutants", "killed", *statuses, "score"]
    note = (
        f"The committed cache (`tools/mutation/cache.json`): {len(functions)} functions. The CI gate judges "
        f"{gate_scope(gated, skipped)} (tox's `mutation` environment); there every mutant is killed or "
        "listed as an equivalent with its reason, or the gate fails.\n\n"
    )
    return note + table(header, rows)


def spec_mutation_figures() -> str:
    """The committed spec-mutation cache's verdicts: spec mutants by row, statement mutants by function."""
    cache_path = ROOT / "tools" / "spec_mutation" / "cache.json"
    if not cache_path.is_file():
        return "No spec-mutation cache yet.\n"
    document = json.loads(cache_path.read_text(encoding="utf-8"))
    lines = []
    for part, owners in (("rows", "rows"), ("functions", "guarded functions")):
        entries = document[part].values()
        total = sum(entry["mutants"] for entry in entries)
        not_killed = Counter(status for entry in entries for status in entry.get("not_killed", {}).values())
        shown = ", ".join(f"{n} {status}" for status, n in sorted(not_killed.items())) or "none"
        kind = "spec mutants" if part == "rows" else "statement mutants"
        lines.append(
            f"* {len(entries)} {owners}, {total} {kind}: {total - sum(not_killed.values())} killed; "
            f"not killed: {shown}."
        )
    header = (
        "The committed cache (`tools/spec_mutation/cache.json`); every survivor is listed as an equivalent "
        "with its reason, or the gate fails (a satisfied probe extension asks for a probe the implementation "
        "already meets: no mutant):\n\n"
    )
    return header + "\n".join(lines) + "\n"


def measured(name: str) -> Callable[[], str]:
    """A block that is a measurement file of docs/measurements, as its command wrote it."""

    def block() -> str:
        path = MEASUREMENTS / name
        return path.read_text(encoding="utf-8") if path.is_file() else "No measurement yet.\n"

    return block


GENERATORS: dict[str, Callable[[], str]] = {
    "engine matrix": engine_matrix,
    "rows by level and category": rows_by_level,
    "ci timing": ci_timing,
    "mutation figures": mutation_figures,
    "spec mutation figures": spec_mutation_figures,
    "benchmark table": measured("benchmarks.md"),
    "mutmut timing": measured("mutmut-timing.md"),
    "staleness": measured("staleness.md"),
}


def regenerated(text: str) -> str:
    def fill(match: re.Match[str]) -> str:
        name = match["name"].strip()
        if name not in GENERATORS:
            raise SystemExit(f"tools.docs: unknown generated block {name!r}")
        return match[1] + GENERATORS[name]() + match[4]

    return BLOCK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.docs", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report out-of-date blocks (exit 1)")
    args = parser.parse_args(argv)
    stale = []
    for path in sorted([*DOCS.rglob("*.md"), ROOT / "README.md"]):
        text = path.read_text(encoding="utf-8")
        new = regenerated(text)
        if new != text:
            stale.append(str(path.relative_to(ROOT)))
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if args.check and stale:
        print(f"tools.docs: out of date (run python -m tools.docs): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
