"""What an adapter or a report file supplies is printed as text, never as layout: a newline cannot add
a verdict line, an escape sequence cannot reach the terminal or make the JUnit XML invalid, a pipe
cannot add a matrix cell, and a report whose verdict its rows contradict is refused."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from contracts.cli.commands import main
from contracts.verify.matrix import MatrixError, build, read_report, to_markdown
from contracts.verify.records import Record, printable
from contracts.verify.untrusted import cleaned, lines, one_line
from tests.common.paths import ROOT

FORGED = "\nOK at level contract: 9 rows: 9 passed in 0.1s"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain, é, Σ, 한국어", "plain, é, Σ, 한국어"),
        ("a\nb\r\tc", "a\\nb\\r\\tc"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("\x00\x7f\x85\x9f", "\\x00\\x7f\\x85\\x9f"),
        ("right\u202eto left\u2028next\u2066", "right\\u202eto left\\u2028next\\u2066"),
    ],
)
def test_one_line_writes_every_control_character_as_its_escape(text: str, expected: str) -> None:
    """Control characters, line separators and bidirectional overrides become escapes; other text
    (accents, Greek, Hangul) stays as it is."""
    assert expected == one_line(text)


def test_a_multiline_text_keeps_its_line_breaks_only() -> None:
    """A message keeps one line per line; a carriage return or an escape inside a line is escaped."""
    assert "first\\r\nsecond \\x1b[2J" == lines("first\r\nsecond \x1b[2J")


def test_a_record_is_printable_in_every_string_it_holds() -> None:
    """A record from the suite's process: its message and falsifying example keep their lines; every
    other string (ids, reasons, clauses, module names) is one line."""
    record = Record(
        "t.py::test[\x1b]",
        ["A.x\nB"],
        "failed",
        reason="why\nnot",
        message="E: bad\n\x1b[31mred",
        falsifying="x=1\ny='\x07'",
        built=["m\n"],
        failed_clauses=[["A.x", None, "r\ns"]],
    )
    expected = Record(
        "t.py::test[\\x1b]",
        ["A.x\\nB"],
        "failed",
        reason="why\\nnot",
        message="E: bad\n\\x1b[31mred",
        falsifying="x=1\ny='\\x07'",
        built=["m\\n"],
        failed_clauses=[["A.x", None, "r\\ns"]],
    )
    assert expected == printable(record)


def test_nested_values_are_cleaned_keys_and_all() -> None:
    """Through dicts and lists, keys too; numbers and None stay."""
    assert {"a\\n": ["b\\x1b", 1, None]} == cleaned({"a\n": ["b\x1b", 1, None]})


def saved(
    tmp_path: Path, name: str, verdict: str, status: str, engine: str = "e", row_id: str = "S03.a"
) -> Path:
    document = {
        "format": "contracts-verify-report",
        "engine": {"name": engine, "version": None},
        "levels": {"values": {"verdict": verdict}},
        "rows": [
            {"id": row_id, "title": "t", "stage": "03", "level": "values", "status": status, "reasons": []}
        ],
    }
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_the_matrix_refuses_a_report_whose_verdict_its_rows_contradict(tmp_path: Path) -> None:
    """A report saying PASSED at level values over a failed row is refused, naming the file, the level
    and both verdicts; an honest one is read."""
    forged = saved(tmp_path, "forged.json", "passed", "failed")
    expected = (
        f"{forged}: its verdict at level values is 'passed' but its rows give 'failed': an edited report"
    )
    with pytest.raises(MatrixError) as refused:
        read_report(forged)
    assert expected == str(refused.value)
    assert {"values": "failed"} == read_report(saved(tmp_path, "honest.json", "failed", "failed"))[0].verdicts


def test_the_matrix_prints_a_forged_name_and_row_id_as_text(tmp_path: Path) -> None:
    """An engine name with a newline and pipes, and a row id with a backtick and a pipe, stay inside
    their cells: the markdown has exactly its three tables' lines."""
    engine = "e | x\n| forged | row |"
    path = saved(tmp_path, "r.json", "passed", "passed", engine=engine, row_id="S03.`a|b`")
    markdown = to_markdown(build([read_report(path)]))
    assert "| e \\| x\\n\\| forged \\| row \\| | - | PASSED: 1 passed |" in markdown.splitlines()
    assert "| `` S03.`a\\|b` `` | values | pass |" in markdown.splitlines()
    assert 11 == len(markdown.splitlines())


HOSTILE_ADAPTER = f"""
from contracts.engines.reference import ReferenceEngine


class Engine(ReferenceEngine):
    name = {"hostile" + FORGED!r}
    capabilities = ReferenceEngine.capabilities - {{"scalar.domain"}}
    lacking = {{"scalar.domain": "\\x1b[31mno domain\\x1b[0m"}}
"""


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="starts contracts verify's children")
def test_an_adapter_cannot_forge_the_verdict_line_or_reach_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An adapter named with a newline and a forged verdict, whose lack reason holds colour codes: the
    table has one verdict line, the last; no escape character reaches the table or the JUnit XML,
    which parses."""
    (tmp_path / "hostile_adapter.py").write_text(HOSTILE_ADAPTER, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(ROOT)]))
    monkeypatch.chdir(tmp_path)
    arguments = [
        "verify",
        "-q",
        "--impl",
        "hostile_adapter:Engine",
        "--rows",
        "S03.fail.log-domain",
        "--quick",
    ]
    main([*arguments, "-o", str(tmp_path / "r.txt")])
    main([*arguments, "--format", "junit", "-o", str(tmp_path / "r.xml")])
    capsys.readouterr()
    table = (tmp_path / "r.txt").read_text(encoding="utf-8")
    verdicts = [line for line in table.splitlines() if line.startswith(("OK at level", "FAILED at level"))]
    assert [table.splitlines()[-1]] == verdicts
    assert "engine hostile\\nOK at level contract" in table
    assert "\x1b" not in table
    xml = (tmp_path / "r.xml").read_text(encoding="utf-8")
    assert "\x1b" not in xml
    ET.fromstring(xml)
