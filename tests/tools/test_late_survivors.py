"""Late mutmut survivors: the one-hot's dtype, two joined messages, run_mutant's fork and poll loop
(with a fake os and clock), and the spec-mutation run's document (selection, seconds, CPU seconds)."""

from __future__ import annotations

import os
import re
import resource
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import array_api_strict
import numpy as np
import pytest
from tools.spec_mutation import runner, statement_plugin
from tools.spec_mutation.catalog import RowMutants

from contracts.engines import DeclarationError, check_error_families
from contracts.engines.base import Engine
from contracts.spec.functions import array_functions
from contracts.verify.runner import VerifyError, check_rows, resolve_engine
from tests.common.fakes import ScriptedClock

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------- the spec formulas' one-hot


def test_numpy_onehot_keeps_the_dtype_of_x() -> None:
    """onehot(t, x) over numpy is float32 for a float32 x: ones and zeros like x, never object arrays."""
    x = np.zeros((2, 3), dtype=np.float32)
    found = array_functions(np)["onehot"](np.asarray([2, 0]), x)
    assert np.dtype(np.float32) == found.dtype
    assert [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]] == found.tolist()


def test_array_api_strict_onehot_is_a_float32_array() -> None:
    """onehot(t, x) over array_api_strict builds ones and zeros like x (a strict namespace takes no None)."""
    xp: Any = array_api_strict
    found = array_functions(xp)["onehot"](xp.asarray([1, 1]), xp.zeros((2, 2), dtype=xp.float32))
    assert xp.float32 == found.dtype
    assert [[0.0, 1.0], [0.0, 1.0]] == np.asarray(found).tolist()


# ---------------------------------------------------------------- messages listing several names


class EngineRefusalError(Exception):
    """An engine's own refusal type."""


class Misnamed(Engine):
    """Maps its refusal onto a family no spec failure row raises."""

    name: ClassVar[str] = "misnamed"
    error_families: ClassVar[dict[type[BaseException], str]] = {EngineRefusalError: "Shape_Error"}


def test_unknown_family_message_lists_the_known_families_comma_separated() -> None:
    """The unknown-family refusal lists every known family, sorted and joined with ', '."""
    with pytest.raises(DeclarationError) as raised:
        check_error_families(Misnamed(), {"ValueError", "ShapeError", "IndexError"})
    assert (
        "misnamed: error_families maps EngineRefusalError onto 'Shape_Error', which no spec failure row "
        "raises (known: IndexError, ShapeError, ValueError)"
    ) == str(raised.value)


def test_blank_rows_message_joins_the_given_values_with_commas() -> None:
    """--rows of several blank values names them joined with ',' (as typed) in the refusal."""
    with pytest.raises(VerifyError) as raised:
        check_rows([], [], ["", " ", ""])
    assert "--rows ', ,': names no row id prefix (blank)" == str(raised.value)


# ---------------------------------------------------------------- run_mutant's fork and poll loop


class ExitedError(Exception):
    """Raised by the fake os._exit: the process would have ended here."""


class FakeOs:
    """The os calls run_mutant makes, recorded; fork returns `forked`, waitpid returns `polls` in turn."""

    WNOHANG = os.WNOHANG
    waitstatus_to_exitcode = staticmethod(os.waitstatus_to_exitcode)

    def __init__(self, forked: int, polls: Sequence[tuple[int, int]], refuse_setpgid: bool = False) -> None:
        self.forked = forked
        self.polls: Iterator[tuple[int, int]] = iter(polls)
        self.refuse_setpgid = refuse_setpgid
        self.calls: list[tuple[Any, ...]] = []

    def fork(self) -> int:
        self.calls.append(("fork",))
        return self.forked

    def setpgid(self, pid: int, group: int) -> None:
        self.calls.append(("setpgid", pid, group))
        if self.refuse_setpgid:
            raise PermissionError(13, "Permission denied")  # the child already ran on (e.g. exec'd)

    def _exit(self, code: int) -> None:
        self.calls.append(("_exit", code))
        raise ExitedError

    def waitpid(self, pid: int, options: int) -> tuple[int, int]:
        self.calls.append(("waitpid", pid, options))
        return next(self.polls, (pid, 0))

    def killpg(self, group: int, signal_number: int) -> None:
        self.calls.append(("killpg", group, signal_number))


def plain() -> None:
    """A function to hand run_mutant (the fake child never runs it)."""


def fake_os_and_clock(
    monkeypatch: pytest.MonkeyPatch, fake: FakeOs, readings: Sequence[float], exit_code: int = 0
) -> None:
    monkeypatch.setattr(statement_plugin, "os", fake)
    monkeypatch.setattr(statement_plugin, "time", ScriptedClock(readings, fake.calls))
    monkeypatch.setattr(statement_plugin, "child_exit_code", lambda function, code, tests: exit_code)


def test_the_parent_polls_the_child_every_hundredth_of_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent (fork != 0) sets the child's group, polls it without blocking, sleeping 0.01 s between
    polls, and reads a nonzero exit code as killed."""
    fake = FakeOs(4242, [(0, 0), (4242, 3 << 8)])
    fake_os_and_clock(monkeypatch, fake, [10.0, 10.2, 10.4])
    assert "killed" == statement_plugin.run_mutant(plain, plain.__code__, [], 2.0)
    assert [
        ("fork",),
        ("setpgid", 4242, 4242),
        ("waitpid", 4242, os.WNOHANG),
        ("sleep", 0.01),
        ("waitpid", 4242, os.WNOHANG),
    ] == fake.calls


def test_the_child_takes_its_own_group_and_exits_with_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child (fork == 0) puts itself in its own process group and exits with child_exit_code's code,
    waiting on nothing."""
    fake = FakeOs(0, [])
    fake_os_and_clock(monkeypatch, fake, [10.0], exit_code=5)
    with pytest.raises(ExitedError):
        statement_plugin.run_mutant(plain, plain.__code__, [], 2.0)
    assert [("fork",), ("setpgid", 0, 0), ("_exit", 5)] == fake.calls


def test_a_refused_setpgid_in_the_parent_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """setpgid raising OSError in the parent (the child got there first) does not stop the run."""
    fake = FakeOs(4242, [(4242, 0)], refuse_setpgid=True)
    fake_os_and_clock(monkeypatch, fake, [10.0, 10.1])
    assert "survived" == statement_plugin.run_mutant(plain, plain.__code__, [], 2.0)
    assert [("fork",), ("setpgid", 4242, 4242), ("waitpid", 4242, os.WNOHANG)] == fake.calls


def test_at_the_deadline_the_child_is_killed_and_reaped_blocking(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock reading exactly the deadline polls no more: the group is killed, the child reaped with a
    blocking waitpid (options 0), and the verdict is timeout."""
    fake = FakeOs(4242, [(0, 0)])
    fake_os_and_clock(monkeypatch, fake, [10.0, 10.5, 11.0])  # deadline 10.0 + 1.0
    assert "timeout" == statement_plugin.run_mutant(plain, plain.__code__, [], 1.0)
    assert [
        ("fork",),
        ("setpgid", 4242, 4242),
        ("waitpid", 4242, os.WNOHANG),
        ("sleep", 0.01),
        ("killpg", 4242, 9),
        ("waitpid", 4242, 0),
    ] == fake.calls


# ---------------------------------------------------------------- the spec-mutation run's document


def test_the_run_document_holds_the_selection_and_rounded_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """run keeps only the --rows prefixes' rows and adds "selection", the run's seconds and the children's
    CPU seconds (both differences, to 1 digit)."""
    entries = [RowMutants("a.toml", "S01.a"), RowMutants("b.toml", "S02.b"), RowMutants("a.toml", "S01.c")]
    monkeypatch.setattr(runner, "catalog", lambda specs: entries)

    def shards_ran(options: runner.RunOptions, parts: Sequence[Sequence[RowMutants]]) -> list[dict[str, Any]]:
        ran = [entry.row_id for part in parts for entry in part]
        return [{"row_id": row_id, "tests": 2, "seconds": 0.5, "mutants": []} for row_id in ran]

    monkeypatch.setattr(runner, "run_shards", shards_ran)
    monkeypatch.setattr(runner, "time", ScriptedClock([100.0, 102.34]))
    cpu = iter([10.0, 12.54])
    monkeypatch.setattr(runner, "children_cpu", lambda: next(cpu))
    found = runner.run(runner.RunOptions(Path("root"), Path("specs"), rows=("S01",)))
    row = {"tests": 2, "seconds": 0.5, "dropped": {}, "mutants": []}
    assert {
        "kind": "spec",
        "seconds": 2.3,
        "rows": [{"row_id": "S01.a", "file": "a.toml", **row}, {"row_id": "S01.c", "file": "a.toml", **row}],
        "selection": ["S01"],
        "cpu_seconds": 2.5,
    } == found
    assert float is type(found["cpu_seconds"])


# ---------------------------------------------------------------- the probe child and the CPU clock

# os.write: below sys.stdout, where only the child's own file descriptor decides where it goes
PRINTS_WHILE_LOADING = (
    "import os\n\nfrom contracts.engines.reference import ReferenceEngine\n\n\n"
    "class Engine(ReferenceEngine):\n    def __init__(self):\n        os.write(1, b'hello from the engine')\n"
)
EXITS_THREE = "import os\n\nos._exit(3)\n"


def test_the_probe_childs_prints_never_reach_verifys_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """An adapter printing while it loads in the probe child writes nothing to verify's own stdout
    (a report may go there), even at the file-descriptor level."""
    (tmp_path / "prints_adapter.py").write_text(PRINTS_WHILE_LOADING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert "prints_adapter:Engine" == resolve_engine("prints_adapter:Engine")["engine"]["impl"]
    assert "" == capfd.readouterr().out


def test_a_probe_child_ending_with_a_code_is_one_verify_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that ends with exit code 3 while loading is a VerifyError naming the code, not a
    CalledProcessError."""
    (tmp_path / "exits_three.py").write_text(EXITS_THREE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    message = (
        "could not start engine 'exits_three:Engine': loading it ended the process (exit code 3) "
        "before the engine was made"
    )
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$"):
        resolve_engine("exits_three:Engine")


class Usage:
    """What resource.getrusage reports: user and system CPU seconds."""

    ru_utime = 1.26
    ru_stime = 2.31


def test_children_cpu_is_user_plus_system_to_one_digit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The children's CPU time is user + system seconds, rounded to one digit, as a float."""
    monkeypatch.setattr(resource, "getrusage", lambda who: Usage())
    cpu = runner.children_cpu()
    assert (3.6, float) == (cpu, type(cpu))
