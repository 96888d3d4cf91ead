"""Files verify and matrix write where the user asked: whole or not at all, one line and exit 4 when a
write fails after the run, refused before the run where the place is plainly wrong."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from contracts.cli.commands import main as cli_main
from contracts.verify.output import EXIT_OUTPUT, OutputError, unwritable, write_whole

FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")


def report_file(tmp_path: Path) -> Path:
    """A minimal saved verify report `contracts matrix` can read."""
    document = {
        "format": "contracts-verify-report",
        "engine": {"name": "reference", "version": None},
        "levels": {"values": {"verdict": "passed"}},
        "rows": [
            {"id": "S03.a", "title": "a", "stage": "03", "level": "values", "status": "passed", "reasons": []}
        ],
    }
    path = tmp_path / "r.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_new_file_is_written_whole_with_the_umask_mode(tmp_path: Path) -> None:
    """write_whole creates the file with its bytes, the mode a plain open() gives, and nothing beside it."""
    target = tmp_path / "report.json"
    write_whole(target, b"whole")
    umask = os.umask(0)
    os.umask(umask)
    assert (b"whole", 0o666 & ~umask, ["report.json"]) == (
        target.read_bytes(),
        stat.S_IMODE(target.stat().st_mode),
        sorted(p.name for p in tmp_path.iterdir()),
    )


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk that fills during the write (fsync failing) leaves the previous report as it was, with its
    permissions, and no partial file; the error names the path and the reason."""
    target = tmp_path / "report.json"
    target.write_bytes(b"previous")
    target.chmod(0o600)

    def full(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError) as refused:
        write_whole(target, b"new and longer")
    assert f"cannot write {target}: No space left on device" == str(refused.value)
    assert (b"previous", ["report.json"]) == (target.read_bytes(), sorted(p.name for p in tmp_path.iterdir()))
    monkeypatch.undo()
    write_whole(target, b"replaced")
    assert (b"replaced", 0o600) == (target.read_bytes(), stat.S_IMODE(target.stat().st_mode))


@needs_dev_full
def test_a_device_is_written_directly_and_never_replaced() -> None:
    """-o /dev/full: the device is written (and fails: no space), not renamed over."""
    with pytest.raises(OutputError) as refused:
        write_whole(FULL, b"x")
    assert "cannot write /dev/full: No space left on device" == str(refused.value)
    assert stat.S_ISCHR(FULL.stat().st_mode)


def test_places_that_cannot_be_written_are_named_before_the_run(tmp_path: Path) -> None:
    """A directory, a missing directory: the reason, in words; a new file in a directory: None."""
    assert (
        "it is a directory",
        f"no directory {tmp_path / 'missing'}",
        None,
    ) == (unwritable(tmp_path), unwritable(tmp_path / "missing" / "r.json"), unwritable(tmp_path / "r.json"))


def test_a_read_only_file_or_directory_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where access() says no (a read-only file; a directory without write permission), the reason says
    which (access() is asked, as root it would say yes to anything)."""
    existing = tmp_path / "old.json"
    existing.write_bytes(b"")
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    assert ("the file is not writable", f"the directory {tmp_path} is not writable") == (
        unwritable(existing),
        unwritable(tmp_path / "new.json"),
    )


@needs_dev_full
def test_matrix_to_a_full_disk_is_one_line_and_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """contracts matrix -o /dev/full: one line naming the file and the reason, exit 4 (not 0, not 1)."""
    assert EXIT_OUTPUT == cli_main(["matrix", str(report_file(tmp_path)), "-o", str(FULL)])
    err = capsys.readouterr().err
    assert (
        "contracts matrix: the matrix was not written: cannot write /dev/full: No space left on device\n"
        == err
    )


@needs_dev_full
@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("-o", "contracts verify: error: the report was not written: cannot write /dev/full: No space left"),
        ("--pytest-log", "contracts verify: error: --pytest-log: cannot write /dev/full: No space left"),
    ],
)
def test_verify_to_a_full_disk_is_one_line_and_exit_4(
    option: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report or a pytest log that cannot be written after the run: exit 4 and one line naming the file
    and the reason; the engine's rows are not charged with it (the run itself passed)."""
    code = cli_main(["verify", "-q", "--rows", "S03.grad.add", option, str(FULL)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert (EXIT_OUTPUT, 1, True) == (code, len(lines), lines[0].startswith(message)), lines
