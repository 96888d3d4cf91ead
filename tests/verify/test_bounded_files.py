"""Reading a report stops at its size bound, exactly; writing one leaves, if the process dies mid-write,
only a hidden partial file beside the target that names it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from contracts.verify.output import write_whole
from contracts.verify.reading import CHUNK, ReadError, read_bounded, read_json


@pytest.mark.parametrize("size", [0, 5, CHUNK - 1, CHUNK, CHUNK + 7, 2 * CHUNK + 3])
def test_a_file_of_exactly_the_limit_is_read_whole_and_one_byte_more_is_refused(
    tmp_path: Path, size: int
) -> None:
    """At the limit every byte comes back, in order, whatever the number of reads; past it by one byte
    the read is refused, naming the limit."""
    data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    path = tmp_path / "r.json"
    path.write_bytes(data)
    assert data == read_bounded(path, size)
    path.write_bytes(data + b"!")
    with pytest.raises(ReadError) as refused:
        read_bounded(path, size)
    assert f"larger than {size} bytes" == str(refused.value)


def test_a_file_that_cannot_be_opened_says_why_in_the_systems_words(tmp_path: Path) -> None:
    """A missing file: the operating system's text for the error, alone."""
    with pytest.raises(ReadError) as refused:
        read_bounded(tmp_path / "missing.json", 10)
    assert os.strerror(2) == str(refused.value)


def test_json_nested_past_the_parser_is_one_exact_line(tmp_path: Path) -> None:
    """A deeply nested document is refused with its reason, nothing more."""
    path = tmp_path / "deep.json"
    path.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ReadError) as refused:
        read_json(path)
    assert "not a JSON report (nested too deeply)" == str(refused.value)


def test_a_write_in_progress_is_a_hidden_partial_file_beside_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the bytes are written (seen at the fsync), the directory holds the old target and one
    hidden file named after it, ending .partial; afterwards only the target."""
    target = tmp_path / "report.json"
    target.write_bytes(b"old")
    seen: list[list[str]] = []
    fsync = os.fsync

    def watching(descriptor: int) -> None:
        seen.append(sorted(path.name for path in tmp_path.iterdir()))
        fsync(descriptor)

    monkeypatch.setattr(os, "fsync", watching)
    write_whole(target, b"new")
    ((partial, name),) = seen
    assert ("report.json", True, True) == (
        name,
        partial.startswith(".report.json."),
        partial.endswith(".partial"),
    )
    assert (b"new", ["report.json"]) == (target.read_bytes(), sorted(p.name for p in tmp_path.iterdir()))


def test_an_interruption_after_the_rename_leaves_the_new_file_and_raises_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interrupt (Ctrl-C) arriving just after the rename: the report is whole, nothing else is left,
    and the interrupt is what propagates."""
    target = tmp_path / "report.json"
    rename = os.replace

    def interrupted(source: str, destination: Path) -> None:
        rename(source, destination)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_whole(target, b"whole")
    assert (b"whole", ["report.json"]) == (target.read_bytes(), sorted(p.name for p in tmp_path.iterdir()))
