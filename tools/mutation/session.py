"""One command for the whole mutation run: mutmut, its CI stats and the gate, with a readable log.

mutmut 3.8 redraws a spinner line with carriage returns ten times a second even when its output is
not a terminal, so a CI log of one run is thousands of frames. This wrapper runs it with its output
piped, prints a progress line when a phase starts and then at most one every `--every` seconds (and
the last frame of each phase), then exports the stats and runs the gate (`tools.mutation.gate`),
whose last line is the score and the verdict.

    python -m tools.mutation.session [--max-children N] [--every SECONDS] [gate options...]
"""

from __future__ import annotations

import argparse
import codecs
import io
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

from tools.mutation import gate as mutation
from tools.mutation import sample as mutation_sample
from tools.mutation import shards as mutation_shards

EVERY = 30.0
ENCODING = "utf-8"  # mutmut's output; a byte that is not UTF-8 is shown as U+FFFD, never an error
MUTANTS = Path("mutants")  # mutmut's working directory, where the sample's files go too


def frames(chunks: Iterable[str]) -> Iterator[str]:
    """The non-blank status frames and lines in mutmut's output, split on carriage returns and newlines."""
    pending = ""
    for chunk in chunks:
        pending += chunk
        *complete, pending = pending.replace("\r", "\n").split("\n")
        yield from (line.strip() for line in complete if line.strip())
    if pending.strip():
        yield pending.strip()


def phase_of(frame: str) -> str:
    """A frame's phase: its text without the spinner glyph and the changing counts."""
    words = frame.split()
    if words and len(words[0]) == 1 and not words[0].isalnum():
        words = words[1:]  # the spinner glyph mutmut puts first
    return " ".join(word for word in words if not any(ch.isdigit() for ch in word))


def progress(lines: Iterable[str], clock: Callable[[], float], every: float) -> Iterator[str]:
    """The frames worth a log line: each phase's first and last frame, and one per `every` seconds."""
    remaining = iter(lines)
    first = next(remaining, None)
    if first is None:
        return
    phase, shown, shown_at, previous = phase_of(first), first, clock(), first
    yield first
    for frame in remaining:
        now = clock()
        current = phase_of(frame)
        if current != phase:
            if previous != shown:
                yield previous  # where the finished phase ended
            phase, shown, shown_at = current, frame, now
            yield frame
        elif now - shown_at >= every:
            shown, shown_at = frame, now
            yield frame
        previous = frame
    if previous != shown:
        yield previous


def decoded(blocks: Iterable[bytes]) -> Iterator[str]:
    """The text of the blocks as they come; a character split between two blocks is joined, and
    one cut off at the end is shown as U+FFFD."""
    decoder = codecs.getincrementaldecoder(ENCODING)(errors="replace")
    for block in blocks:
        yield decoder.decode(block)
    yield decoder.decode(b"", final=True)


def relay(process: subprocess.Popen[bytes], out: TextIO, clock: Callable[[], float], every: float) -> int:
    """Copy the process's throttled progress to out, live; its exit code."""
    stream = process.stdout
    assert isinstance(stream, io.BufferedIOBase)  # started with stdout=PIPE, buffered, binary
    # read1 returns what the pipe holds, at most a buffer's worth (read(n) would wait for n bytes:
    # no live progress, as measured by test_relay_prints_each_frame_while_the_child_still_runs)
    for line in progress(frames(decoded(iter(stream.read1, b""))), clock, every):
        print(f"mutmut: {line}", file=out, flush=True)
    return process.wait()


def run_mutmut(max_children: int, every: float, out: TextIO, names: Sequence[str] = ()) -> int:
    """`mutmut run` (of the named mutants or patterns only, when given), its progress relayed to out."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children), *names],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=mutation.fork_safe_environment(os.environ),
    )
    return relay(process, out, time.monotonic, every)


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="python -m tools.mutation.session", description=__doc__)
    made.add_argument("--max-children", type=int, default=2)
    made.add_argument("--every", type=float, default=EVERY, help="seconds between progress lines")
    made.add_argument(
        "--sample",
        type=float,
        default=100.0,
        help="percent of the source functions whose mutants run and are gated (default 100: every mutant)",
    )
    made.add_argument("--sample-seed", default="0", help="which sample (default 0)")
    return made


def main(argv: Sequence[str] | None = None) -> int:
    options, gate_args = parser().parse_known_args(argv)
    if options.sample < 100:
        return run_sample(options, gate_args)
    code = run_mutmut(options.max_children, options.every, sys.stdout)
    if code != 0:
        print(f"mutation: mutmut run exited {code}; no score", file=sys.stderr)
        return code
    exported = subprocess.run(
        [sys.executable, "-m", "mutmut", "export-cicd-stats"]
    )  # its exit code is read below
    if exported.returncode != 0:
        print(f"mutation: mutmut export-cicd-stats exited {exported.returncode}; no score", file=sys.stderr)
        return exported.returncode
    return mutation.main(gate_args)


def run_sample(options: argparse.Namespace, gate_args: Sequence[str]) -> int:
    """Mutate and gate the sampled functions only (tools.mutation.sample): the gate reads the
    sample's stats, results and listed mutants, written next to mutmut's own files."""
    functions = mutation_sample.all_functions(mutation.SOURCE)
    chosen = mutation_sample.sample(functions, options.sample_seed, options.sample)
    print(
        f"mutation sample: {len(chosen)} of {len(functions)} functions "
        f"({options.sample:g} %, seed {options.sample_seed!r})"
    )
    if not chosen:
        print("mutation: the sample holds no function; raise --sample", file=sys.stderr)
        return 2
    code = run_mutmut(options.max_children, options.every, sys.stdout, mutation_sample.patterns(chosen))
    if code != 0:
        print(f"mutation: mutmut run exited {code}; no score", file=sys.stderr)
        return code
    verdicts = mutation_sample.sample_verdicts(MUTANTS, mutation.SOURCE, chosen)
    files = {name: MUTANTS / f"sample-{name}" for name in ("equivalents.toml", "pending.toml")}
    gate_files = mutation_shards.write_verdicts(
        verdicts, MUTANTS / "sample-stats.json", MUTANTS / "sample-results.txt"
    )
    for listed, path in (
        (mutation.EQUIVALENTS, files["equivalents.toml"]),
        (mutation.PENDING, files["pending.toml"]),
    ):
        path.write_bytes(mutation_sample.listing(mutation_sample.listed_in(listed, chosen)).encode())
    print(f"mutation sample: {len(verdicts)} mutants; score spread {mutation_sample.spread(verdicts)}")
    return mutation.main(
        [
            *gate_files,
            "--equivalents",
            str(files["equivalents.toml"]),
            "--pending",
            str(files["pending.toml"]),
            *gate_args,
        ]
    )


if __name__ == "__main__":
    raise SystemExit(main())
