"""python -m tools.mutation {gate,update,shard,merge}: mutmut over src/contracts, with a committed cache.

gate             CI: today's mutants; the cached verdicts that still hold (tools/mutation/cache.json,
                 see tools.mutation.cache); mutmut for the rest, unless more than --limit mutants
                 need a run (then it fails, naming the command that refreshes the cache); the gate
                 (tools.mutation.gate) over cached and fresh verdicts. Writes nothing.
update [--all]   the same run (no limit; --all: every mutant, the whole suite's stats), then writes
                 the cache and gates. Commit tools/mutation/cache.json afterwards.
shard I/N        the whole run of shard I of N (source modules dealt by size), in this checkout;
                 writes its part of the cache to mutants/shard-I-of-N.json.
merge FILE...    the shards' parts merged into the cache (each function from exactly one shard),
                 then the gate: equal to one `update --all`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tools.mutation import cache as mutation_cache
from tools.mutation.cache import Cache, Layout, Outcome, Plan
from tools.mutation.gate import THRESHOLD, gate, load_listed
from tools.mutation.mutants import Mutant, blind_spots, functions, mutated_files, package_mutants
from tools.mutation.run import file_of, run_mutmut

LIMIT = 400  # mutants CI runs itself; at ~0.75 s a mutant on two cores, about 5 minutes beside the stats
REFRESH = "python -m tools.mutation update"

Runner = Callable[[Sequence[Mutant], Sequence[str] | None], Outcome]


def today_of(layout: Layout) -> dict[str, list[Mutant]]:
    files = [path.relative_to(layout.root) for path in mutated_files(layout.path(layout.source))]
    return functions(package_mutants(files, layout.root))


def describe(planned: Plan, today: Mapping[str, Sequence[Mutant]]) -> str:
    total = sum(len(mutants) for mutants in today.values())
    reasons: dict[str, int] = {}
    for why in planned.stale.values():
        reasons[why] = reasons.get(why, 0) + 1
    stale = ", ".join(f"{count} {why}" for why, count in sorted(reasons.items())) or "none"
    rechecked = sum(len(mutants) for mutants in planned.recheck.values())
    standing = total - len(planned.mutants_to_run(today)) + rechecked
    return (
        f"mutation cache: {standing} of {total} verdicts stand; "
        f"stale functions: {stale}; {rechecked} not-killed mutants rechecked against "
        f"{len(planned.changed_tests)} changed test files"
    )


def judge(
    layout: Layout,
    every: Mapping[str, Sequence[Mutant]],
    today: Mapping[str, Sequence[Mutant]],
    verdicts: Mapping[str, str],
    threshold: float,
) -> int:
    """The gate over the verdicts of today's (chosen) functions; listings judged against every mutant."""
    keyed = {m.key: verdicts[m.name] for mutants in today.values() for m in mutants if m.name in verdicts}
    existing = {m.key for mutants in every.values() for m in mutants}
    spots = blind_spots(mutated_files(layout.path(layout.source)))
    extra = [
        f"decorated function with logic (mutmut never mutates it): {where}; move the logic" for where in spots
    ]
    listed = load_listed(layout.path(layout.equivalents))
    return gate("mutation", keyed, existing, listed, threshold, layout.equivalents, extra)


def chosen(
    today: Mapping[str, list[Mutant]], only: Sequence[str], skip: Sequence[str] = ()
) -> dict[str, list[Mutant]]:
    """The functions whose dotted name starts with one of the `only` prefixes (none given: every
    function) and with none of the `skip` prefixes."""
    return {
        name: mutants
        for name, mutants in today.items()
        if (not only or name.startswith(tuple(only))) and not name.startswith(tuple(skip))
    }


def run_and_gate(
    layout: Layout,
    runner: Runner,
    *,
    limit: int | None,
    write: bool,
    everything: bool = False,
    full_selection: bool = False,
    threshold: float = THRESHOLD,
    only: Sequence[str] = (),
    skip: Sequence[str] = (),
) -> int:
    """The gate (limit set, nothing written) or the update (no limit, the cache written), over every
    function or those `only` names, but those `skip` names (their verdicts judged; stale listings
    judged against every mutant)."""
    every = today_of(layout)
    today = chosen(every, only, skip)
    for prefix in skip:
        left = sum(len(mutants) for name, mutants in every.items() if name.startswith(prefix))
        print(f"mutation: not judged here: {left} mutants of {prefix} (--except)", flush=True)
    files = mutation_cache.test_root_files(layout)
    environment = mutation_cache.environment_hash(layout)
    loaded = mutation_cache.load(layout.path(layout.cache))
    planned = mutation_cache.plan(
        Cache() if everything else loaded, today, layout, files, environment, full_selection or everything
    )
    print(describe(planned, today), flush=True)
    to_run = planned.mutants_to_run(today)
    # the refresh runs what this gate judges: with the whole package in the cache, a bare `update`
    # after a spec edit would rerun every function, not only the gated ones
    refresh = REFRESH + "".join(f" --only {prefix}" for prefix in only)
    refresh += "".join(f" --except {prefix}" for prefix in skip)
    if limit is not None and len(to_run) > limit:
        for function in sorted(planned.stale)[:20]:
            print(f"  stale: {function} ({planned.stale[function]})")
        print(
            f"FAIL: {len(to_run)} mutants need a run, more than the limit of {limit}: refresh the cache "
            f"with `{refresh}` (or `{REFRESH} --all`, or the shards of `python -m tools.mutation --help`) "
            f"and commit {layout.cache}"
        )
        print("mutation gate: failed")
        return 1
    outcome = runner(to_run, planned.selection)
    if write:
        try:
            updated = mutation_cache.record(
                loaded, planned, today, outcome, layout, files, environment, every
            )
        except mutation_cache.UnfinishedRunError as error:
            print(f"mutation: {error}; the cache is not written")
        else:
            mutation_cache.save(updated, layout.path(layout.cache))
            print(f"mutation cache: {layout.cache} written ({len(updated.functions)} functions)")
    return judge(layout, every, today, mutation_cache.verdicts_of(planned, outcome, today), threshold)


def shards_of(layout: Layout, count: int) -> list[list[str]]:
    """Source files dealt to count shards by size: heaviest first, each to the lightest shard so far."""
    files = mutated_files(layout.path(layout.source))
    weights = {
        path.relative_to(layout.root).as_posix(): len(path.read_bytes().splitlines()) for path in files
    }
    shards: list[list[str]] = [[] for _ in range(count)]
    loads = [0] * count
    for name in sorted(weights, key=lambda file: (-weights[file], file)):
        lightest = loads.index(min(loads))
        shards[lightest].append(name)
        loads[lightest] += weights[name]
    return [sorted(shard) for shard in shards]


def shard_main(layout: Layout, index: int, count: int, runner: Runner, out: Path) -> int:
    """Run every mutant of shard index (1-based) of count with the whole suite's stats; write its part."""
    files = set(shards_of(layout, count)[index - 1])
    today = {
        function: mutants
        for function, mutants in today_of(layout).items()
        if file_of(layout, mutants[0]) in files
    }
    print(f"mutation shard {index}/{count}: {len(files)} files, {len(today)} functions")
    files_now = mutation_cache.test_root_files(layout)
    environment = mutation_cache.environment_hash(layout)
    planned = mutation_cache.plan(Cache(), today, layout, files_now, environment, full_selection=True)
    outcome = runner(planned.mutants_to_run(today), None)
    try:
        part = mutation_cache.record(Cache(), planned, today, outcome, layout, files_now, environment)
    except mutation_cache.UnfinishedRunError as error:
        print(f"mutation shard: {error}", file=sys.stderr)
        return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    mutation_cache.save(part, out)
    print(f"mutation shard {index}/{count}: {out} written")
    return 0


def merge_main(layout: Layout, parts: Sequence[Path], runner: Runner, threshold: float) -> int:
    """The shards' parts as the cache (each function from exactly one part, one environment); the gate."""
    merged = Cache()
    for path in parts:
        part = mutation_cache.load(path)
        if merged.environment and part.environment != merged.environment:
            print(f"mutation merge: {path} was run in another environment than {parts[0]}", file=sys.stderr)
            return 2
        twice = sorted(set(part.functions) & set(merged.functions))
        if twice:
            print(f"mutation merge: {twice[0]} is in two parts (and {len(twice) - 1} more)", file=sys.stderr)
            return 2
        rows_read = mutation_cache.merged_rows_read([merged.rows_read, part.rows_read])
        merged = Cache(part.environment, part.files, {**merged.functions, **part.functions}, rows_read)
    merged.functions = dict(sorted(merged.functions.items()))
    mutation_cache.save(merged, layout.path(layout.cache))
    print(f"mutation merge: {len(parts)} parts, {len(merged.functions)} functions -> {layout.cache}")
    return run_and_gate(layout, runner, limit=0, write=False, threshold=threshold)


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="python -m tools.mutation",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--max-children", type=int, default=2, help="mutmut's parallel children (default 2)")
    common.add_argument("--threshold", type=float, default=THRESHOLD, help=f"default {THRESHOLD}")
    commands = made.add_subparsers(dest="command", required=True)
    gate_command = commands.add_parser(
        "gate", parents=[common], help="the CI gate over cached and fresh verdicts"
    )
    gate_command.add_argument(
        "--limit", type=int, default=LIMIT, help=f"mutants CI may run (default {LIMIT})"
    )
    update = commands.add_parser("update", parents=[common], help="run what is stale, write the cache, gate")
    update.add_argument("--all", action="store_true", help="every mutant, the whole suite's stats")
    for command in (gate_command, update):
        command.add_argument(
            "--full-selection",
            action="store_true",
            help="stale functions run against every test, not their own",
        )
        command.add_argument(
            "--only",
            action="append",
            default=[],
            metavar="PREFIX",
            help="only the functions whose dotted name starts with PREFIX (repeatable): their verdicts are "
            "judged, and only they run",
        )
        command.add_argument(
            "--except",
            dest="skip",
            action="append",
            default=[],
            metavar="PREFIX",
            help="not the functions whose dotted name starts with PREFIX (repeatable): the gate names "
            "how many mutants it leaves unjudged",
        )
    shard = commands.add_parser("shard", parents=[common], help="run one shard of the whole run")
    shard.add_argument("shard", help="I/N, 1-based")
    shard.add_argument("--out", type=Path, help="default: mutants/shard-I-of-N.json")
    merge = commands.add_parser(
        "merge", parents=[common], help="merge the shards' parts into the cache; gate"
    )
    merge.add_argument("parts", nargs="+", type=Path)
    return made


def main(
    argv: Sequence[str] | None = None, layout: Layout | None = None, runner: Runner | None = None
) -> int:
    options = parser().parse_args(argv)
    layout = layout or Layout()
    found = layout
    run: Runner = runner or (
        lambda mutants, selection: run_mutmut(found, mutants, selection, options.max_children)
    )
    if options.command == "gate":
        return run_and_gate(
            layout,
            run,
            limit=options.limit,
            write=False,
            full_selection=options.full_selection,
            threshold=options.threshold,
            only=options.only,
            skip=options.skip,
        )
    if options.command == "update":
        return run_and_gate(
            layout,
            run,
            limit=None,
            write=True,
            everything=options.all,
            full_selection=options.full_selection,
            threshold=options.threshold,
            only=options.only,
            skip=options.skip,
        )
    if options.command == "shard":
        index, _, count = options.shard.partition("/")
        if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
            print(f"mutation shard: I/N with 1 <= I <= N, got {options.shard!r}", file=sys.stderr)
            return 2
        out = options.out or layout.path(f"mutants/shard-{index}-of-{count}.json")
        return shard_main(layout, int(index), int(count), run, out)
    return merge_main(layout, options.parts, run, options.threshold)


if __name__ == "__main__":
    raise SystemExit(main())
