"""Where a mutmut run's time went, from the files it leaves behind: a markdown table by package.

    python -m tools.mutation.timing [DIR]    # DIR: the run's scratch copy, default mutants/incremental

mutmut records each mutant's test time (`durations_by_key` in `mutants/<source file>.meta`) and the
stats pass's (`stats_time` in `mutants/mutmut-stats.json`). A mutant's time is its tests only: the fork
and the pytest start-up of each child, and the clean-test pass, are not in these files. With N children
the mutants' share of the wall time is about their sum over N.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tools.docs import table as markdown_table

DEFAULT = Path("mutants/incremental")
SLOWEST = 3  # source files named per package


@dataclass
class Package:
    """The mutants of one package (contracts.core, contracts.verify, ...) and their test time."""

    mutants: int = 0
    by_file: dict[str, float] = field(default_factory=dict)  # file within the package -> test seconds

    @property
    def seconds(self) -> float:
        return sum(self.by_file.values())


def metas(work: Path) -> Iterator[tuple[str, dict[str, float]]]:
    """(source file relative to the scratch copy, each mutant's test seconds) for every .meta file."""
    base = work / "mutants"
    for meta in sorted(base.rglob("*.py.meta")):
        durations: dict[str, float] = json.loads(meta.read_bytes()).get("durations_by_key", {})
        yield meta.relative_to(base).as_posix().removesuffix(".meta"), durations


def package_of(source: str) -> tuple[str, str]:
    """src/contracts/core/value.py -> (contracts.core, value.py); a top-level module is its own package."""
    parts = Path(source).parts
    inside = parts[1:] if parts[0] == "src" else parts
    return ".".join(inside[:2]).removesuffix(".py"), "/".join(inside[2:]) or inside[-1]


def by_package(work: Path) -> dict[str, Package]:
    packages: dict[str, Package] = {}
    for source, durations in metas(work):
        name, file = package_of(source)
        package = packages.setdefault(name, Package())
        package.mutants += len(durations)
        package.by_file[file] = sum(durations.values())
    return packages


def table(work: Path) -> str:
    """The markdown table: per package its timed mutants, their test seconds, the mean and the slowest
    files; a total row; the stats pass's time."""
    packages = by_package(work)
    if not packages:
        raise SystemExit(f"tools.mutation.timing: no mutmut .meta files under {work / 'mutants'}")
    rows = []
    for name, package in sorted(packages.items(), key=lambda item: -item[1].seconds):
        slowest = sorted(package.by_file.items(), key=lambda item: -item[1])[:SLOWEST]
        named = ", ".join(f"{file} {seconds:.0f} s" for file, seconds in slowest)
        mean = package.seconds / package.mutants if package.mutants else 0.0
        rows.append([name, str(package.mutants), f"{package.seconds:.0f} s", f"{mean:.2f} s", named])
    count = sum(package.mutants for package in packages.values())
    seconds = sum(package.seconds for package in packages.values())
    rows.append(["all", str(count), f"{seconds:.0f} s", f"{seconds / max(count, 1):.2f} s", ""])
    text = markdown_table(["package", "mutants timed", "test time", "mean", "slowest files"], rows)
    stats = work / "mutants" / "mutmut-stats.json"
    if stats.is_file():
        stats_time = float(json.loads(stats.read_bytes()).get("stats_time", 0.0))
        text += (
            f"\nThe stats pass (every test once, recording which functions it calls): {stats_time:.0f} s.\n"
        )
    return text


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    print(table(Path(arguments[0]) if arguments else DEFAULT), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
