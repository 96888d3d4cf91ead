"""The conformance matrix: rows × engines from verify reports, as markdown and as one HTML page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from contracts.cli.commands import main as cli_main
from contracts.verify import matrix, reading
from contracts.verify.matrix import Cell, build, main, read_report, to_html, to_markdown


def report(
    engine: str, rows: list[tuple[str, str, str, list[str]]], version: str | None = None
) -> dict[str, Any]:
    """A minimal verify report: (id, stage, status, reasons) per row, every row at level values, whose
    verdict is verify's (docs/levels.md): failed when a row is neither passed, partly verified, n/a nor
    deselected; else passed when one ran; else nothing verified."""
    statuses = {status for _, _, status, _ in rows}
    verdict = "nothing verified" if statuses <= {"not applicable", "deselected"} else "passed"
    if statuses - {"passed", "partly verified", "not applicable", "deselected"}:
        verdict = "failed"
    return {
        "format": "contracts-verify-report",
        "engine": {"name": engine, "version": version},
        "levels": {"values": {"verdict": verdict}},
        "rows": [
            {
                "id": row_id,
                "title": f"title of {row_id}",
                "stage": stage,
                "level": "values",
                "status": status,
                "reasons": reasons,
            }
            for row_id, stage, status, reasons in rows
        ],
    }


def write(tmp_path: Path, name: str, document: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


REFERENCE = report("reference", [("S03.a", "03", "passed", []), ("T.b", "T", "passed", [])])
TORCH = report(
    "torch", [("S03.a", "03", "failed", []), ("T.b", "T", "not applicable", ["torch <splits> & ties"])]
)
EXTRA = report("other", [("S05.c", "05", "skipped", ["why"])])


def test_a_row_never_run_on_the_engine_is_marked_as_such(tmp_path: Path) -> None:
    """verify's 'not exercised' (a test passed without calling the engine) is shown, never as a pass."""
    path = write(tmp_path, "n.json", report("e", [("S03.a", "03", "not exercised", [])]))
    assert "| `S03.a` | values | NOT RUN |\n" in to_markdown(build([read_report(path)]))
    assert '<td style="background:#f4a3a3" title="not exercised">NOT RUN</td>' in to_html(
        build([read_report(path)])
    )


def test_markdown_has_a_cell_per_row_and_engine_and_counts_per_stage(tmp_path: Path) -> None:
    """Rows in first-report order, one mark per engine, absent rows as '-', counts per stage and in all."""
    paths = [write(tmp_path, f"{i}.json", doc) for i, doc in enumerate((REFERENCE, TORCH, EXTRA))]
    expected = (
        "| row | level | reference | torch | other |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| `S03.a` | values | pass | FAIL | - |\n"
        "| `T.b` | values | pass | n/a | - |\n"
        "| `S05.c` | values | - | - | skip |\n"
        "\n"
        "| engine | stage 03 | stage 05 | stage T | all |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| reference | 1 passed | 1 deselected | 1 passed | 2 passed, 1 deselected |\n"
        "| torch | 1 failed | 1 deselected | 1 not applicable | 1 failed, 1 not applicable, 1 deselected |\n"
        "| other | 1 deselected | 1 skipped | 1 deselected | 1 skipped, 2 deselected |\n"
    )
    text = to_markdown(build([read_report(path) for path in paths]))
    assert expected == text[text.index("| row |") :]


def test_html_colours_each_cell_and_puts_the_reason_on_hover(tmp_path: Path) -> None:
    """Each cell carries its status colour and its escaped reason as the title; the page is standalone."""
    page = to_html(build([read_report(write(tmp_path, "t.json", TORCH))]))
    assert page.startswith("<!DOCTYPE html>")
    assert page.endswith("</html>\n")
    assert '<td style="background:#e2e2e2" title="torch &lt;splits&gt; &amp; ties">n/a</td>' in page
    assert '<td style="background:#f4a3a3" title="failed">FAIL</td>' in page
    assert '<tr><th title="title of T.b"><code>T.b</code></th>' in page
    assert (
        "<tr><th>torch</th><td>1 failed</td><td>1 not applicable</td><td>1 failed, 1 not applicable</td></tr>"
        in page
    )
    assert "http" not in page.replace('lang="en"', "")  # nothing loaded from elsewhere


def test_a_row_takes_its_title_and_stage_from_the_first_report_that_holds_it() -> None:
    """Reports that disagree on a row's title or stage (another spec version): the first one's are shown."""
    first = (matrix.Column("a", {}), [matrix.RowInfo("X.y", "first title", "X")])
    second = (
        matrix.Column("b", {}),
        [matrix.RowInfo("X.y", "second title", "Z"), matrix.RowInfo("Z.z", "z", "Z")],
    )
    assert [matrix.RowInfo("X.y", "first title", "X"), matrix.RowInfo("Z.z", "z", "Z")] == build(
        [first, second]
    ).rows


def test_a_missing_row_reads_as_absent() -> None:
    """A row one report lacks is shown as deselected with the reason that the report does not hold it."""
    made = build([(matrix.Column("e", {}), [matrix.RowInfo("X.y", "t", "X")])])
    assert Cell("deselected", "not in this report") == made.cell(made.columns[0], "X.y")


# A row field of the wrong type: the error names the row (where), the field and the types.
ROW_FIELD_ERRORS: list[tuple[str, dict[str, object], str]] = [
    ("without-id", {"id": None}, "rows[0]: 'id' must be a str, got NoneType"),
    ("reasons-not-list", {"reasons": "why"}, "rows[0]: 'reasons' must be a list, got str"),
    ("title-not-str", {"title": 1}, "rows[0]: 'title' must be a str, got int"),
    ("stage-not-str", {"stage": 3}, "rows[0]: 'stage' must be a str, got int"),
]

BAD_REPORTS = [
    pytest.param(b"{", "not a JSON report", id="not-json"),
    pytest.param(b"\xff\xfe", "not a JSON report", id="not-utf8"),
    pytest.param(b"[" * 100_000 + b"]" * 100_000, "not a JSON report (nested too deeply)", id="deep"),
    pytest.param(b'{"format": ' + b"9" * 5000 + b"}", "not a JSON report (Exceeds the limit", id="long-int"),
    pytest.param(json.dumps({"format": "x"}).encode(), "not a contracts verify report", id="wrong-format"),
    pytest.param(json.dumps([1]).encode(), "not a contracts verify report", id="not-an-object"),
    pytest.param(
        json.dumps({"format": "contracts-verify-report", "rows": []}).encode(),
        "missing 'engine'",
        id="no-engine",
    ),
    pytest.param(
        json.dumps({"format": "contracts-verify-report", "engine": {"name": 3}, "rows": []}).encode(),
        "engine: 'name' must be a str, got int",
        id="engine-name-type",
    ),
    pytest.param(
        json.dumps({**report("e", [("A.b", "A", "passed", [])]), "rows": [{"id": "A.b"}]}).encode(),
        "rows[0]: missing 'status'",
        id="row-without-status",
    ),
    *(
        pytest.param(
            json.dumps(
                {**report("e", []), "rows": [{**report("e", [("A.b", "A", "passed", [])])["rows"][0], **bad}]}
            ).encode(),
            message,
            id=f"row-{name}",
        )
        for name, bad, message in ROW_FIELD_ERRORS
    ),
    pytest.param(
        json.dumps(report("e", [("A.b", "A", "green", [])])).encode(),
        "rows[0]: unknown status 'green'",
        id="status",
    ),
    pytest.param(
        json.dumps({**report("e", []), "rows": {}}).encode(),
        "'rows' must be a list, got dict",
        id="rows-not-list",
    ),
]


@pytest.mark.parametrize(("content", "message"), BAD_REPORTS)
def test_a_bad_report_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    """A report that is not a verify report ends in a one-line error naming the file, exit code 2."""
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert 2 == main([str(path)])
    err = capsys.readouterr().err
    assert 1 == err.count("\n")
    assert err.startswith(f"contracts matrix: {path}")
    assert message in err


def test_no_report_and_no_engine_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """With nothing to show, matrix says what to give and exits 2."""
    assert 2 == main([])
    assert "contracts matrix: give saved reports or --impl NAME (at least one)\n" == capsys.readouterr().err


def test_an_unwritable_output_is_refused_before_any_verify_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """-o in a missing directory fails at once: no engine is run."""
    ran: list[str] = []
    monkeypatch.setattr(matrix, "run_verify", lambda impl, out, extra: ran.append(impl))
    target = tmp_path / "missing" / "m.html"
    assert 2 == main(["--impl", "reference", "-o", str(target)])
    assert (
        f"contracts matrix: cannot write {target}: no directory {target.parent}\n" == capsys.readouterr().err
    )
    assert [] == ran


def test_main_writes_html_to_the_output_file(tmp_path: Path) -> None:
    """--format html -o FILE writes the page there and exits 0."""
    target = tmp_path / "m.html"
    assert 0 == cli_main(
        ["matrix", str(write(tmp_path, "r.json", REFERENCE)), "--format", "html", "-o", str(target)]
    )
    assert to_html(build([read_report(tmp_path / "r.json")])) == target.read_text(encoding="utf-8")


def test_impl_runs_verify_per_engine_into_a_temporary_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each --impl runs `contracts verify --format json -o TMP -q` plus --verify-arg, then is read."""
    commands: list[list[str]] = []

    def fake_run(command: list[str]) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        Path(command[command.index("-o") + 1]).write_text(json.dumps(TORCH), encoding="utf-8")
        return subprocess.CompletedProcess(command, 1)

    monkeypatch.setattr(subprocess, "run", fake_run)
    assert 0 == main(["--impl", "torch", "--verify-arg=--rows=T"])
    out_file = commands[0][commands[0].index("-o") + 1]
    base = [sys.executable, "-m", "contracts.cli", "verify", "--impl", "torch", "--format", "json", "-o"]
    assert [[*base, out_file, "-q", "--rows=T"]] == commands
    assert not Path(out_file).exists()  # the temporary directory is gone
    assert Path(out_file).parent.name.startswith("contracts-matrix-")  # named, should one be left behind
    assert capsys.readouterr().out.startswith("| engine | version | level values |\n")


def test_a_verify_run_that_wrote_no_report_is_named(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine whose verify could not start leaves no report: matrix says which, with its exit code."""
    monkeypatch.setattr(subprocess, "run", lambda command: subprocess.CompletedProcess(command, 2))
    assert 2 == main(["--impl", "nope"])
    assert (
        "contracts matrix: contracts verify --impl nope wrote no report (exit code 2)\n"
        == capsys.readouterr().err
    )


def test_the_verdict_of_each_engine_at_each_level_heads_the_matrix(tmp_path: Path) -> None:
    """One line per engine with its version and its verdict per level (that level's rows alone) and the
    rows behind it, in markdown and in the HTML page."""
    paths = [
        write(tmp_path, f"{i}.json", doc)
        for i, doc in enumerate((REFERENCE, report("t", TORCH_ROWS, "2.13")))
    ]
    built = build([read_report(path) for path in paths])
    lines = to_markdown(built).splitlines()
    assert "| reference | - | PASSED: 2 passed |" == lines[2]
    assert "| t | 2.13 | FAILED: 1 failed, 1 not applicable |" == lines[3]
    assert "<td>FAILED: 1 failed, 1 not applicable</td>" in to_html(built)


TORCH_ROWS = [("S03.a", "03", "failed", []), ("T.b", "T", "not applicable", ["why"])]


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(
            lambda path: Path("/dev/zero"), "cannot read the report: not a regular file", id="device"
        ),
        pytest.param(fifo, "cannot read the report: not a regular file", id="fifo"),
        pytest.param(lambda path: path, "cannot read the report: No such file or directory", id="missing"),
    ],
)
def test_a_report_that_is_no_file_is_refused_without_reading_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str
) -> None:
    """/dev/zero (endless), a FIFO with no writer (would block), a missing path: one line, exit 2, at once."""
    path = make(tmp_path / "r.json")
    assert 2 == main([str(path)])
    assert f"contracts matrix: {path}: {message}\n" == capsys.readouterr().err


def test_a_report_past_the_size_limit_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A report larger than the limit is refused by what is read, not parsed."""
    path = tmp_path / "huge.json"
    path.write_bytes(b" " * (reading.MAX_REPORT_BYTES + 1))
    assert 2 == main([str(path)])
    limit = reading.MAX_REPORT_BYTES
    assert (
        f"contracts matrix: {path}: cannot read the report: larger than {limit} bytes\n"
        == capsys.readouterr().err
    )


def test_a_read_that_fails_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A regular file whose read fails (a disk error) is one line naming the OS's reason, exit 2."""
    path = write(tmp_path, "r.json", REFERENCE)

    def failing(descriptor: int, size: int) -> bytes:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "read", failing)
    assert 2 == main([str(path)])
    assert (
        f"contracts matrix: {path}: cannot read the report: Input/output error\n" == capsys.readouterr().err
    )
