"""`contracts matrix` in full: the markdown and the HTML page of two engines over two levels, and the
one-line errors for reports that lack their levels or a row's level."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contracts.cli.commands import main


def row(row_id: str, stage: str, level: str, status: str, reasons: list[str]) -> dict[str, Any]:
    """One row of a verify report, titled after its id."""
    return {
        "id": row_id,
        "title": f"title of {row_id}",
        "stage": stage,
        "level": level,
        "status": status,
        "reasons": reasons,
    }


# alpha: version 1.0, a verdict at both levels; S05.b failed with two reasons.
ALPHA: dict[str, Any] = {
    "format": "contracts-verify-report",
    "engine": {"name": "alpha", "version": "1.0"},
    "levels": {"values": {"verdict": "passed"}, "refusals": {"verdict": "failed"}},
    "rows": [
        row("S03.a", "03", "values", "passed", []),
        row("S05.b", "05", "refusals", "failed", ["first", "second"]),
    ],
}
# beta: no version, no verdict at level refusals, and no row S05.b.
BETA: dict[str, Any] = {
    "format": "contracts-verify-report",
    "engine": {"name": "beta", "version": None},
    "levels": {"values": {"verdict": "passed"}},
    "rows": [row("S03.a", "03", "values", "partly verified", ["why"])],
}


def saved(tmp_path: Path, name: str, document: object) -> str:
    """The document saved as tmp_path/name; its path as a command-line argument."""
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


MARKDOWN = """\
| engine | version | level values | level refusals |
| --- | --- | --- | --- |
| alpha | 1.0 | PASSED: 1 passed | FAILED: 1 failed |
| beta | - | PASSED: 1 partly verified | NOT IN THIS REPORT: 1 deselected |

| row | level | alpha | beta |
| --- | --- | --- | --- |
| `S03.a` | values | pass | part |
| `S05.b` | refusals | FAIL | - |

| engine | stage 03 | stage 05 | all |
| --- | --- | --- | --- |
| alpha | 1 passed | 1 failed | 1 passed, 1 failed |
| beta | 1 partly verified | 1 deselected | 1 partly verified, 1 deselected |
"""

HTML = (
    "<!DOCTYPE html>\n"
    '<html lang="en"><head><meta charset="utf-8"><title>contracts conformance matrix</title>\n'
    "<style>body{font-family:sans-serif}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #999;padding:2px 6px;text-align:left}td{text-align:center}</style>"
    "</head><body>\n"
    "<h1>Conformance matrix</h1>\n"
    "<table><tr><th>engine</th><th>version</th><th>level values</th><th>level refusals</th></tr>"
    "<tr><th>alpha</th><td>1.0</td><td>PASSED: 1 passed</td><td>FAILED: 1 failed</td></tr>"
    "<tr><th>beta</th><td>-</td><td>PASSED: 1 partly verified</td>"
    "<td>NOT IN THIS REPORT: 1 deselected</td></tr></table>\n"
    "<table><tr><th>engine</th><th>stage 03</th><th>stage 05</th><th>all</th></tr>"
    "<tr><th>alpha</th><td>1 passed</td><td>1 failed</td><td>1 passed, 1 failed</td></tr>"
    "<tr><th>beta</th><td>1 partly verified</td><td>1 deselected</td>"
    "<td>1 partly verified, 1 deselected</td></tr></table>\n"
    "<table><tr><th>row</th><th>level</th><th>alpha</th><th>beta</th></tr>\n"
    '<tr><th title="title of S03.a"><code>S03.a</code></th><td>values</td>'
    '<td style="background:#b7e4b0" title="passed">pass</td>'
    '<td style="background:#d9efc9" title="why">part</td></tr>\n'
    '<tr><th title="title of S05.b"><code>S05.b</code></th><td>refusals</td>'
    '<td style="background:#f4a3a3" title="first; second">FAIL</td>'
    '<td style="background:#ffffff" title="not in this report">-</td></tr>\n'
    "</table>\n"
    "</body></html>\n"
)


def test_markdown_of_two_engines_over_two_levels_in_full(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The markdown: a verdict per engine and level (NOT IN THIS REPORT where a report has none), a mark
    per row and engine, then counts per stage, the three tables one blank line apart; exit code 0."""
    arguments = ["matrix", saved(tmp_path, "a.json", ALPHA), saved(tmp_path, "b.json", BETA)]
    assert 0 == main(arguments)
    assert (MARKDOWN, "") == capsys.readouterr()


def test_html_page_of_two_engines_over_two_levels_in_full(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The HTML page written by -o: the level table (version or '-'), the stage table, then a coloured
    cell per row and engine with its reasons joined by '; ' on hover; nothing on stdout or stderr."""
    target = tmp_path / "matrix.html"
    paths = [saved(tmp_path, "a.json", ALPHA), saved(tmp_path, "b.json", BETA)]
    assert 0 == main(["matrix", *paths, "--format", "html", "-o", str(target)])
    assert HTML == target.read_text(encoding="utf-8")
    assert ("", "") == capsys.readouterr()


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        pytest.param(
            {key: ALPHA[key] for key in ALPHA if key != "levels"}, "missing 'levels'", id="no-levels"
        ),
        pytest.param({**ALPHA, "levels": {"values": {}}}, "levels: missing 'verdict'", id="no-verdict"),
        pytest.param(
            {**ALPHA, "rows": [{k: v for k, v in ALPHA["rows"][0].items() if k != "level"}]},
            "rows[0]: missing 'level'",
            id="row-without-level",
        ),
    ],
)
def test_a_report_lacking_a_level_field_is_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: dict[str, Any], problem: str
) -> None:
    """A report without its levels, a level without its verdict or a row without its level: one line on
    stderr naming the file and the missing field, exit code 2."""
    path = saved(tmp_path, "bad.json", document)
    assert 2 == main(["matrix", path])
    assert ("", f"contracts matrix: {path}: {problem}\n") == capsys.readouterr()


def test_an_unknown_matrix_format_is_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--format pdf is refused before any report is read: `contracts matrix: error:` names the option and
    the value, exit code 2, nothing on stdout."""
    with pytest.raises(SystemExit) as stopped:
        main(["matrix", saved(tmp_path, "a.json", ALPHA), "--format", "pdf"])
    assert 2 == stopped.value.code
    out, err = capsys.readouterr()
    assert "" == out
    assert err.startswith("usage: contracts matrix ")
    assert err.splitlines()[-1].startswith(
        "contracts matrix: error: argument --format: invalid choice: 'pdf'"
    )
