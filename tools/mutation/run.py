"""Run mutmut on some mutants only, in a scratch copy of the project, and read what it found.

The copy's pyproject restricts mutmut to the files holding the mutants (`only_mutate`, so only they
get trampolines) and, when given, its tests to a selection of test files
(`pytest_add_cli_args_test_selection`): mutmut's stats pass then runs those files, not the whole
suite. `mutmut run <names>` runs exactly the named mutants. Its meta files give each mutant's exit
code, and its stats which tests called each function.

mutmut 3.8 redraws a spinner line with carriage returns ten times a second even when its output is
not a terminal, so its output is relayed as one line per phase change and at most one a minute.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from tools.mutation.cache import EVERY_TEST, Layout, Outcome
from tools.mutation.mutants import Mutant, dotted
from tools.mutation.reads import OUTPUT as READS
from tools.spec_mutation import tomlwriter

# mutmut (and the statement mutants) fork a child per mutant from a process that has run torch: a
# forked child waits forever on the parent's OpenMP/MKL worker threads (measured: torch_engine's
# mutants all hung until mutmut's timeout, which counts a timeout as caught). One thread each: the
# children run the same ops without a pool.
FORK_SAFE_THREADS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
EVERY = 60.0
# More mutants than this are run by running every mutant of their files (a fresh copy has no verdict):
# a superset, read back by name; the command line stays short.
NAMED_UP_TO = 2000
NO_COVERING_TEST = (
    "could not find any test case"  # mutmut stops when no selected test calls a mutated function
)


def fork_safe_environment(environment: Mapping[str, str]) -> dict[str, str]:
    """environment with the thread pools of numpy and torch at one thread (FORK_SAFE_THREADS)."""
    return {**environment, **FORK_SAFE_THREADS}


def status_of(exit_code: int | None) -> str:
    from mutmut.stats import status_by_exit_code

    status: str = status_by_exit_code.get(exit_code, "suspicious")
    return status


def phase_of(line: str) -> str:
    """A line's phase: its text without the spinner glyph mutmut puts first and the changing counts."""
    words = line.split()
    if words and len(words[0]) == 1 and not words[0].isalnum():
        words = words[1:]
    return " ".join(word for word in words if not any(ch.isdigit() for ch in word))


def phases(
    chunks: Iterable[str], clock: Callable[[], float] = time.monotonic, every: float = EVERY
) -> Iterator[str]:
    """mutmut's output as lines: split on carriage returns and newlines; of the spinner frames of one
    phase, the first and then at most one per `every` seconds."""
    pending, phase, shown_at = "", None, 0.0
    for chunk in chunks:
        pending += chunk
        *complete, pending = pending.replace("\r", "\n").split("\n")
        for line in (line.strip() for line in complete):
            now = clock()
            if line and (phase_of(line) != phase or now - shown_at >= every):
                phase, shown_at = phase_of(line), now
                yield line
    if pending.strip():
        yield pending.strip()


def relay(command: Sequence[str], cwd: Path, out: TextIO) -> tuple[int, str]:
    """Run the command, its output relayed to out a phase at a time; its exit code and whole output."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=fork_safe_environment(os.environ),
    )
    stream = process.stdout
    assert isinstance(stream, io.BufferedIOBase)  # started with stdout=PIPE, buffered, binary
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    seen: list[str] = []

    def chunks() -> Iterator[str]:
        # read1: what the pipe holds now, so progress is shown live
        for block in iter(lambda: stream.read1(65536), b""):
            text = decoder.decode(block)
            seen.append(text)
            yield text

    for line in phases(chunks()):
        print(f"mutmut: {line}", file=out, flush=True)
    return process.wait(), "".join(seen)


def prepare(layout: Layout, work: Path, files: Sequence[str], selection: Sequence[str] | None) -> None:
    """A fresh scratch copy of the project at work: source, tests, tools and a pyproject whose
    [tool.mutmut] mutates only files and selects only the selection's tests."""
    if work.exists():
        shutil.rmtree(work)
    pyproject = tomllib.loads(layout.path("pyproject.toml").read_text(encoding="utf-8"))
    tool = pyproject.get("tool", {})
    settings = dict(tool.get("mutmut", {}))
    tops = {
        Path(name).parts[0] for name in (layout.source, *layout.test_roots, *settings.get("also_copy", []))
    }
    ignored = shutil.ignore_patterns("__pycache__", "*.egg-info", "mutants")
    for top in sorted(tops):
        origin = layout.path(top)
        if origin.is_dir():
            shutil.copytree(origin, work / top, ignore=ignored)
        elif origin.is_file():
            shutil.copy2(origin, work / top)
    settings["only_mutate"] = list(files)
    if selection is not None:
        settings["pytest_add_cli_args_test_selection"] = list(selection)
    ini = tool.get("pytest", {}).get("ini_options", {})
    text = [
        "[tool.mutmut]",
        *tomlwriter.table(settings),
        "",
        "[tool.pytest.ini_options]",
        *tomlwriter.table(ini),
    ]
    (work / "pyproject.toml").write_text("\n".join(text) + "\n", encoding="utf-8")


def read_outcome(work: Path, mutants: Sequence[Mutant], files: Sequence[str]) -> Outcome:
    """Each mutant's status from mutmut's meta files, and the test files that called each function
    from its stats (a test's file is its node id before `::`)."""
    codes: dict[str, int | None] = {}
    for file in files:
        meta = work / "mutants" / f"{file}.meta"
        if meta.exists():
            codes.update(json.loads(meta.read_bytes())["exit_code_by_key"])
    statuses = {m.name: status_of(codes[m.name]) if m.name in codes else "not checked" for m in mutants}
    covering: dict[str, set[str]] = {}
    stats = work / "mutants" / "mutmut-stats.json"
    if stats.exists():
        tests: dict[str, list[str]] = json.loads(stats.read_bytes())["tests_by_mangled_function_name"]
        for mangled, ids in tests.items():
            module, _, name = mangled.rpartition(".")
            covering[dotted(module, name)] = {test.partition("::")[0] for test in ids}
    return Outcome(statuses, covering, rows_read_of(work, covering))


def rows_read_of(work: Path, covering: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The spec rows each covering test file read in the stats pass (tools.mutation.reads), a file that
    read none with an empty set; nothing when the pass recorded nothing."""
    recorded = work / "mutants" / READS
    if not recorded.exists():
        return {}
    reads: dict[str, list[str]] = json.loads(recorded.read_bytes())
    files = {EVERY_TEST, *(file for found in covering.values() for file in found)}
    return {file: set(reads.get(file, ())) for file in sorted(files)}


def run_mutmut(
    layout: Layout,
    mutants: Sequence[Mutant],
    selection: Sequence[str] | None,
    max_children: int = 2,
    work: Path | None = None,
    out: TextIO | None = None,
) -> Outcome:
    """Run the mutants (mutmut run with their names) in a scratch copy, tests restricted to the
    selection (None: every test); their statuses and the covering test files mutmut saw."""
    if not mutants:
        return Outcome({}, {})
    out = out or sys.stdout
    work = work or layout.path("mutants/incremental")
    files = sorted({file_of(layout, mutant) for mutant in mutants})
    if selection is not None and not selection:
        return Outcome(dict.fromkeys((m.name for m in mutants), "no tests"), {})
    prepare(layout, work, files, selection)
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)]
    print(
        f"mutation: mutmut run of {len(mutants)} mutants in {len(files)} files, tests: "
        f"{'all' if selection is None else f'{len(selection)} files'}",
        file=out,
        flush=True,
    )
    # every mutant of the copy (a whole run): no names, which mutmut takes as all of them
    names = [] if len(mutants) > NAMED_UP_TO else [m.name for m in mutants]
    code, output = relay([*command, *names], work, out)
    if code != 0 and NO_COVERING_TEST in output:
        return Outcome(dict.fromkeys((m.name for m in mutants), "no tests"), {})
    if code != 0:
        print(output[-3000:], file=out)
        print(f"mutation: mutmut run exited {code}", file=out)
    return read_outcome(work, mutants, files)


def file_of(layout: Layout, mutant: Mutant) -> str:
    """The source file (relative to root) that defines the mutant's module."""
    base = layout.source.rpartition("/")[0]  # src
    relative = mutant.module.replace(".", "/")
    for candidate in (f"{base}/{relative}.py", f"{base}/{relative}/__init__.py"):
        if layout.path(candidate).exists():
            return candidate
    raise FileNotFoundError(f"no source file for module {mutant.module}")
