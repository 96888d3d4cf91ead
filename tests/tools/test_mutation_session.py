"""The mutation session wrapper: spinner frames become a few progress lines; the gate decides."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
import tools.mutation.gate
from tools.mutation import session as mutation_session
from tools.mutation.session import frames, main, phase_of, progress, relay

from tests.common.argparse_spec import described


def ticking(times: Sequence[float]) -> Any:
    """A clock that returns the given times in order."""
    values: Iterator[float] = iter(times)
    return lambda: next(values)


def test_frames_split_on_carriage_returns_and_newlines_across_chunks() -> None:
    """Frames are the non-blank pieces between \\r and \\n, even when a chunk cuts one in two."""
    chunks = ["\r⠋ Running stats", "\r⠙ Running st", "ats  \n\n", "\r⠹ 3/10 mutants", "  \r⠸ 4/10 tail"]
    expected = ["⠋ Running stats", "⠙ Running stats", "⠹ 3/10 mutants", "⠸ 4/10 tail"]
    assert expected == list(frames(chunks))


def test_a_phase_is_its_text_without_spinner_or_counts() -> None:
    """The spinner glyph and every word holding a digit are dropped; the rest names the phase."""
    frame = "⠋ 12/5511 🎉 7 🫥 0 ⏰ 0 🤔 0 🙁 1 🔇 0 12.50 mutations/second"
    assert "🎉 🫥 ⏰ 🤔 🙁 🔇 mutations/second" == phase_of(frame)
    assert "Running stats" == phase_of("⠙ Running stats")
    assert "a b" == phase_of("a b")  # no glyph: the first word stays
    assert "" == phase_of("")


def test_progress_shows_phase_changes_throttled_frames_and_each_phase_end() -> None:
    """First frame of a phase, one frame per interval, and the last frame before the next phase."""
    lines = ["⠋ Running stats", "⠙ Running stats", "⠋ 1/9 x", "⠙ 2/9 x", "⠹ 3/9 x", "⠸ 4/9 x", "⠼ 5/9 x"]
    clock = ticking([0.0, 1.0, 2.0, 10.0, 31.9, 32.0, 33.0])
    expected = ["⠋ Running stats", "⠙ Running stats", "⠋ 1/9 x", "⠸ 4/9 x", "⠼ 5/9 x"]
    assert expected == list(progress(lines, clock, every=30.0))


def test_progress_does_not_repeat_a_frame_already_shown() -> None:
    """A phase of one frame, or a last frame shown by the interval, is printed once."""
    clock = ticking([0.0, 5.0, 40.0])
    assert ["⠋ a", "⠙ 1 b", "⠹ 2 b"] == list(progress(["⠋ a", "⠙ 1 b", "⠹ 2 b"], clock, every=30.0))
    assert [] == list(progress([], ticking([]), every=30.0))


def test_progress_shows_a_first_frame_without_a_phase_name() -> None:
    """A first frame that is all counts (its phase reads empty) is still the first line shown."""
    assert ["⠋ 1/2", "⠙ 2/2"] == list(progress(["⠋ 1/2", "⠙ 2/2"], ticking([0.0, 0.0]), every=30.0))


class FlushCounting(io.StringIO):
    """An output that counts its flushes (a CI log shows a line only once it is flushed)."""

    flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def test_relay_prints_the_progress_and_returns_the_exit_code() -> None:
    """A real child's spinner output is relayed as prefixed lines and its exit code is returned."""
    script = "import sys; sys.stdout.write('\\r⠋ Running stats\\r⠙ Running stats\\r⠋ 1/2 x\\n'); sys.exit(3)"
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    out = FlushCounting()
    assert 3 == relay(process, out, ticking([0.0, 1.0, 2.0]), every=30.0)
    expected = "mutmut: ⠋ Running stats\nmutmut: ⠙ Running stats\nmutmut: ⠋ 1/2 x\n"
    assert (expected, 3) == (out.getvalue(), out.flushes)  # each line flushed as it is printed


class Recorded:
    def __init__(self, code: int) -> None:
        self.code = code
        self.calls: list[Any] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((args, kwargs))
        return self.code


def test_main_runs_mutmut_then_exports_then_gates(monkeypatch: pytest.MonkeyPatch) -> None:
    """mutmut run, export-cicd-stats, then the gate with the other options; the gate's code is returned."""
    run = Recorded(0)
    gate = Recorded(7)
    exported: list[list[str]] = []

    def fake_export(command: list[str]) -> subprocess.CompletedProcess[str]:
        exported.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(mutation_session, "run_mutmut", run)
    monkeypatch.setattr(subprocess, "run", fake_export)
    monkeypatch.setattr(tools.mutation.gate, "main", gate)
    assert 7 == main(["--max-children", "1", "--every", "5", "--threshold", "0.9"])
    assert [((1, 5.0, sys.stdout), {})] == run.calls
    assert [[sys.executable, "-m", "mutmut", "export-cicd-stats"]] == exported
    assert [((["--threshold", "0.9"],), {})] == gate.calls


@pytest.mark.parametrize(
    ("run_code", "export_code", "message"),
    [
        (4, 0, "mutmut run exited 4"),
        (0, 5, "mutmut export-cicd-stats exited 5"),
        (0, 1, "mutmut export-cicd-stats exited 1"),  # 1 too: the gate would read stale stats
    ],
)
def test_main_stops_with_the_failing_step_code(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    run_code: int,
    export_code: int,
    message: str,
) -> None:
    """A failing mutmut step ends the session with its code and a one-line reason; the gate never runs."""
    gate = Recorded(0)
    monkeypatch.setattr(mutation_session, "run_mutmut", Recorded(run_code))
    monkeypatch.setattr(
        subprocess,
        "run",
        lambda command: subprocess.CompletedProcess(command, export_code),
    )
    monkeypatch.setattr(tools.mutation.gate, "main", gate)
    assert (run_code or export_code) == main([])
    assert f"mutation: {message}; no score\n" == capsys.readouterr().err
    assert [] == gate.calls


def test_relay_prints_each_frame_while_the_child_still_runs() -> None:
    """Progress is live: the child writes a frame, then waits until the relay has printed it (a relay
    that read the whole output first would never print it in time: the child then says so)."""
    script = (
        "import select, sys\n"
        "sys.stdout.write('⠋ 1/2 x\\n'); sys.stdout.flush()\n"
        "ready = select.select([sys.stdin], [], [], 10)[0]\n"
        "seen = ready and sys.stdin.readline() == 'go\\n'\n"
        "sys.stdout.write('⠙ 2/2 seen\\n' if seen else '⠙ 2/2 not seen\\n')\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    class Answering(io.StringIO):
        def write(self, text: str) -> int:
            if "⠋ 1/2 x" in text and process.stdin is not None:
                process.stdin.write(b"go\n")
                process.stdin.close()
            return super().write(text)

    out = Answering()
    assert 0 == relay(process, out, ticking([0.0, 0.0]), every=0.0)
    assert "mutmut: ⠋ 1/2 x\nmutmut: ⠙ 2/2 seen\n" == out.getvalue()


def test_relay_joins_a_character_split_between_two_reads() -> None:
    """A frame whose UTF-8 spinner glyph arrives in two pieces is relayed whole."""
    script = (
        "import sys, time\n"
        "sys.stdout.buffer.write(b'\\xe2\\xa0'); sys.stdout.flush(); time.sleep(0.3)\n"
        "sys.stdout.buffer.write(b'\\x8b 1/1 x\\n'); sys.stdout.flush()\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    out = io.StringIO()
    assert 0 == relay(process, out, ticking([0.0]), every=0.0)
    assert "mutmut: ⠋ 1/1 x\n" == out.getvalue()


def test_relay_shows_bytes_that_are_not_utf8_and_a_cut_last_character_as_replacements() -> None:
    """A stray byte and a character cut off at the end are each shown as U+FFFD, never an error."""
    script = "import sys; sys.stdout.buffer.write(b'\\xff 1/2 x\\n\\xe2\\xa0')"
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    out = io.StringIO()
    assert 0 == relay(process, out, ticking([0.0, 0.0]), every=0.0)
    assert "mutmut: \ufffd 1/2 x\nmutmut: \ufffd\n" == out.getvalue()


def test_run_mutmut_starts_mutmut_with_its_output_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    """`mutmut run --max-children N` starts under this interpreter with one-thread numpy and torch pools
    (the environment otherwise kept); its frames, on stdout and stderr, are relayed at the interval
    given (0: every frame)."""
    started: list[list[str]] = []
    real_popen = subprocess.Popen
    script = (
        "import os, sys; print('⠋ 1/3 x', flush=True); sys.stderr.write('⠙ 2/3 x\\n'); sys.stderr.flush(); "
        "print('⠹ 3/3 x', os.environ['OMP_NUM_THREADS'], os.environ['MKL_NUM_THREADS'], "
        "os.environ['OPENBLAS_NUM_THREADS'], os.environ['KEPT'])"
    )

    def fake_popen(command: list[str], **kwargs: Any) -> subprocess.Popen[str]:
        started.append(command)
        return real_popen([sys.executable, "-c", script], **kwargs)

    monkeypatch.setattr(subprocess, "Popen", fake_popen)
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    monkeypatch.setenv("KEPT", "yes")
    out = io.StringIO()
    assert 0 == mutation_session.run_mutmut(3, 0.0, out)
    assert [[sys.executable, "-m", "mutmut", "run", "--max-children", "3"]] == started
    assert "mutmut: ⠋ 1/3 x\nmutmut: ⠙ 2/3 x\nmutmut: ⠹ 3/3 x 1 1 1 yes\n" == out.getvalue()


def test_defaults_and_help(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Two children and a line every 30 s by default; --help names the command and the options."""
    run = Recorded(0)
    monkeypatch.setattr(mutation_session, "run_mutmut", run)
    monkeypatch.setattr(subprocess, "run", lambda command: subprocess.CompletedProcess(command, 0))
    monkeypatch.setattr(tools.mutation.gate, "main", Recorded(0))
    assert 0 == main([])
    assert [((2, 30.0, sys.stdout), {})] == run.calls
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m tools.mutation.session [-h] [--max-children MAX_CHILDREN]")
    assert "One command for the whole mutation run" in out
    store = "_StoreAction"
    assert [
        (["--max-children"], "max_children", store, 2, "int", None, False, None, None, None),
        (
            ["--every"],
            "every",
            store,
            30.0,
            "float",
            None,
            False,
            None,
            None,
            "seconds between progress lines",
        ),
        (
            ["--sample"],
            "sample",
            store,
            100.0,
            "float",
            None,
            False,
            None,
            None,
            "percent of the source functions whose mutants run and are gated (default 100: every mutant)",
        ),
        (
            ["--sample-seed"],
            "sample_seed",
            store,
            "0",
            None,
            None,
            False,
            None,
            None,
            "which sample (default 0)",
        ),
    ] == described(mutation_session.parser())
