"""Split the mutation run into N deterministic shards, one per machine, and merge their verdicts.

A shard is a set of source modules (mutmut names every mutant `<module>.x_<function>__mutmut_<n>` or
`<module>.xǁ<Class>ǁ<method>__mutmut_<n>`, so a module's mutants are selected by two patterns).
Modules are dealt to shards by size, largest first, each to the lightest shard so far: the same
source always gives the same shards, and every module is in exactly one. Each shard runs
`mutmut run <its patterns>` in its own checkout and keeps its `mutants/` directory; `merge` takes,
for every module, the verdicts of the shard that owns it, writes mutmut's CI stats and the results
listing, and runs the same gate (`tools.mutation.gate`) a single-machine run feeds.

    python -m tools.mutation.shards run --shard 1/4        # on machine 1 of 4 (1-based)
    python -m tools.mutation.shards merge shard1/mutants shard2/mutants ... [gate options]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from tools.mutation import gate as mutation
from tools.mutation.gate import mutated_files

SOURCE = Path("src/contracts")
SHARD = re.compile(r"(\d+)/(\d+)")  # --shard i/N
# mutmut 3.8.1's exit code -> status (mutmut.stats.status_by_exit_code; the version is pinned, and a
# test compares this copy with mutmut's own where mutmut is installed). Any other code: suspicious.
STATUS_BY_EXIT_CODE: dict[int | None, str] = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    2: "check was interrupted by user",
    None: "not checked",
    33: "no tests",
    34: "skipped",
    35: "suspicious",
    36: "timeout",
    37: "caught by type check",
    -24: "timeout",
    24: "timeout",
    152: "timeout",
    255: "timeout",
    -11: "segfault",
    -9: "segfault",
}
STATS_FIELDS = (
    "killed",
    "survived",
    "total",
    "no_tests",
    "skipped",
    "suspicious",
    "timeout",
    "check_was_interrupted_by_user",
    "segfault",
)


class ShardError(ValueError):
    """A shard option or a shard's results are unusable: the message says which and why."""


def status_of(exit_code: int | None) -> str:
    return STATUS_BY_EXIT_CODE.get(exit_code, "suspicious")


def parse_shard(text: str) -> tuple[int, int]:
    """'i/N' (1-based) -> (i, N)."""
    match = SHARD.fullmatch(text)
    if match is None or not 1 <= int(match[1]) <= int(match[2]):
        raise ShardError(f"--shard must be i/N with 1 <= i <= N, got {text!r}")
    return int(match[1]), int(match[2])


def source_modules(source: Path) -> dict[str, Path]:
    """Module name -> file, for every Python file under source (a package directory inside src/)."""
    root = source.parent
    found: dict[str, Path] = {}
    for path in mutated_files(source):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def assign(weights: Mapping[str, int], count: int) -> list[list[str]]:
    """Modules dealt to count shards: heaviest first, each to the lightest shard (lowest index on ties)."""
    shards: list[list[str]] = [[] for _ in range(count)]
    loads = [0] * count
    for name in sorted(weights, key=lambda module: (-weights[module], module)):
        lightest = loads.index(min(loads))
        shards[lightest].append(name)
        loads[lightest] += weights[name]
    return [sorted(shard) for shard in shards]


def module_weights(modules: Mapping[str, Path]) -> dict[str, int]:
    """A module's weight: its number of lines (mutants grow with code)."""
    return {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules.items()}


def shards_of(source: Path, count: int) -> list[list[str]]:
    return assign(module_weights(source_modules(source)), count)


def patterns(module: str) -> list[str]:
    """mutmut name patterns selecting exactly one module's mutants (functions, then methods)."""
    return [f"{module}.x_*", f"{module}.xǁ*"]


def run_command(shard: Sequence[str], max_children: int) -> list[str]:
    names = [pattern for module in shard for pattern in patterns(module)]
    return [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children), *names]


def read_verdicts(mutants: Path, module: str, file: Path) -> dict[str, int | None]:
    """The exit code of every mutant of one module, from a shard's mutants/ directory."""
    meta = mutants / f"{file.as_posix()}.meta"
    try:
        codes: dict[str, int | None] = json.loads(meta.read_bytes())["exit_code_by_key"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ShardError(f"{meta}: no mutmut results for {module} ({error})") from None
    return codes


def merge(
    shard_dirs: Sequence[Path], shards: Sequence[Sequence[str]], modules: Mapping[str, Path]
) -> dict[str, int | None]:
    """Every mutant's exit code, each module's taken from the shard that owns it."""
    if len(shard_dirs) != len(shards):
        raise ShardError(
            f"merge needs one mutants/ directory per shard: {len(shards)}, got {len(shard_dirs)}"
        )
    merged: dict[str, int | None] = {}
    for directory, shard in zip(shard_dirs, shards):
        for module in shard:
            merged.update(read_verdicts(directory, module, modules[module]))
    unchecked = sorted(name for name, code in merged.items() if code is None)
    if unchecked:
        raise ShardError(f"{len(unchecked)} mutants were not checked by their shard, e.g. {unchecked[0]}")
    return merged


def stats(verdicts: Mapping[str, int | None]) -> dict[str, int]:
    """mutmut's CI stats (export-cicd-stats) of the merged verdicts."""
    counted = dict.fromkeys(STATS_FIELDS, 0)
    counted["total"] = len(verdicts)
    for code in verdicts.values():
        key = status_of(code).replace(" ", "_")
        if key in counted:
            counted[key] += 1
    return counted


def results_text(verdicts: Mapping[str, int | None]) -> str:
    """`mutmut results`' listing: every mutant not killed, with its status."""
    lines = [f"    {name}: {status_of(code)}" for name, code in sorted(verdicts.items())]
    return "".join(line + "\n" for line in lines if not line.endswith(": killed"))


def run_main(options: argparse.Namespace) -> int:
    index, count = parse_shard(options.shard)
    shard = shards_of(options.source, count)[index - 1]
    print(f"mutation shard {index}/{count}: {len(shard)} modules: {' '.join(shard)}")
    sys.stdout.flush()  # this line before mutmut's output, which goes to the same descriptor
    command = run_command(shard, options.max_children)
    return subprocess.run(command, env=mutation.fork_safe_environment(os.environ)).returncode


def merge_main(options: argparse.Namespace, gate_args: list[str]) -> int:
    modules = source_modules(options.source)
    shards = assign(module_weights(modules), len(options.mutants))
    verdicts = merge(options.mutants, shards, modules)
    options.out.mkdir(parents=True, exist_ok=True)
    stats_path = options.out / "mutmut-cicd-stats.json"
    gate_files = write_verdicts(verdicts, stats_path, options.out / "mutmut-results.txt")
    print(f"merged {len(options.mutants)} shards: {len(verdicts)} mutants -> {stats_path}")
    return mutation.main([*gate_files, *gate_args])


def write_verdicts(verdicts: Mapping[str, int | None], stats_path: Path, results_path: Path) -> list[str]:
    """The verdicts as the gate reads a mutmut run (its CI stats and its results listing), written to
    the two paths; the gate options that name them."""
    stats_path.write_bytes((json.dumps(stats(verdicts), indent=4) + "\n").encode())
    results_path.write_bytes(results_text(verdicts).encode())
    return ["--stats", str(stats_path), "--results", str(results_path)]


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="python -m tools.mutation.shards", description=__doc__)
    made.add_argument("--source", type=Path, default=SOURCE)
    commands = made.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one shard's mutants here")
    run.add_argument("--shard", required=True, help="i/N, 1-based")
    run.add_argument("--max-children", type=int, default=2)
    merged = commands.add_parser("merge", help="merge the shards' mutants/ directories and gate")
    merged.add_argument(
        "mutants", nargs="+", type=Path, help="each shard's mutants/ directory, in shard order"
    )
    merged.add_argument("--out", type=Path, default=Path("mutants-merged"))
    return made


def main(argv: Sequence[str] | None = None) -> int:
    made = parser()
    options, rest = made.parse_known_args(argv)
    if options.command == "run" and rest:
        made.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        if options.command == "run":
            return run_main(options)
        return merge_main(options, rest)
    except ShardError as error:
        print(f"mutation shards: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
