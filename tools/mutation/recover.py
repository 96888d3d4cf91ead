"""Record an interrupted run in the cache: every stale function all of whose mutants finished.

    python -m tools.mutation.recover [WORK]    # WORK: the run's scratch copy, default mutants/incremental

A whole update that cannot finish in the time one has (a module whose mutants run for minutes each)
still leaves each finished mutant's verdict in mutmut's meta files and the stats pass's coverage and row
reads in its working directory. A function the cache held stale (or not at all) whose every mutant has a
verdict gets its cache entry (the others keep theirs), keyed on the scratch copy's sources and test
files as the run saw them (the specs and pyproject are the checkout's: the copy has none of the first
and a rewritten second); a function with an unfinished mutant keeps its stale entry or none, so the next
update runs it. Run it after stopping the run, before the next one replaces the scratch copy.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from tools.mutation import cache as mutation_cache
from tools.mutation.__main__ import today_of
from tools.mutation.cache import UNFINISHED_STATUSES, Layout
from tools.mutation.run import file_of, read_outcome


def main(argv: list[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    real = Layout()
    work = Path(arguments[0]) if arguments else real.path("mutants/incremental")
    for top in real.specs:  # the copy has no specs: the checkout's, which a run never changes
        if not (work / top).exists():
            (work / top).symlink_to(real.path(top).resolve(), target_is_directory=True)
    seen = replace(real, root=work)
    every = today_of(seen)
    files = mutation_cache.test_root_files(seen)
    environment = mutation_cache.environment_hash(real)
    known = mutation_cache.load(real.path(real.cache))
    planned = mutation_cache.plan(known, every, seen, files, environment, full_selection=True)
    mutants = [mutant for function in sorted(every) for mutant in every[function]]
    outcome = read_outcome(work, mutants, sorted({file_of(seen, mutant) for mutant in mutants}))
    finished = {
        function: found
        for function, found in every.items()
        if all(outcome.statuses.get(m.name, "not checked") not in UNFINISHED_STATUSES for m in found)
    }
    planned.stale = {function: why for function, why in planned.stale.items() if function in finished}
    planned.recheck = {}
    recorded = mutation_cache.record(known, planned, finished, outcome, seen, files, environment, every)
    mutation_cache.save(recorded, real.path(real.cache))
    left = len(every) - len(finished)
    print(f"mutation recover: {len(finished)} functions recorded, {left} with an unfinished mutant left out")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
