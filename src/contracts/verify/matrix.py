"""The conformance matrix: spec rows × engines, from `contracts verify --format json` reports.

`contracts matrix a.json b.json` reads saved reports; `contracts matrix --impl reference --impl torch`
runs `contracts verify` for each engine first. The output is markdown (for a README) or one
self-contained HTML page: a colour per cell, the reason on hover, a summary per stage and per engine.
"""

from __future__ import annotations

import argparse
import html
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any

from contracts.verify.output import EXIT_OUTPUT, OutputError, unwritable, write_whole
from contracts.verify.reading import ReadError, read_json
from contracts.verify.report import LEVELS, verdict_of
from contracts.verify.untrusted import one_line

EXIT_INVALID = 2
MARKS = {
    "passed": "pass",
    "partly verified": "part",
    "failed": "FAIL",
    "not exercised": "NOT RUN",
    "not applicable": "n/a",
    "skipped": "skip",
    "unbound": "unbound",
    "deselected": "-",
}
COLOURS = {
    "passed": "#b7e4b0",
    "partly verified": "#d9efc9",
    "failed": "#f4a3a3",
    "not exercised": "#f4a3a3",
    "not applicable": "#e2e2e2",
    "skipped": "#f8e3a3",
    "unbound": "#f8e3a3",
    "deselected": "#ffffff",
}
ABSENT = "deselected"  # a row that one report does not hold


class MatrixError(ValueError):
    """A report cannot be read: the message names the file and what is wrong."""


@dataclass(frozen=True)
class Cell:
    status: str
    reason: str


@dataclass(frozen=True)
class Column:
    """One engine's report: its name and version, a cell per row id, its verdict per level."""

    engine: str
    cells: dict[str, Cell]
    version: str = ""
    verdicts: dict[str, str] = dataclass_field(
        default_factory=dict
    )  # level -> passed/failed/nothing verified


@dataclass(frozen=True)
class RowInfo:
    id: str
    title: str
    stage: str
    level: str = ""


def field(document: Any, key: str, kind: type, where: str) -> Any:
    """document[key], which must be of the given type."""
    if not isinstance(document, dict) or key not in document:
        raise MatrixError(f"{where}: missing {key!r}")
    value = document[key]
    if not isinstance(value, kind):
        raise MatrixError(f"{where}: {key!r} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def read_report(path: Path) -> tuple[Column, list[RowInfo]]:
    """One saved report: its column and its rows (in report order)."""
    try:
        document = read_json(path)
    except ReadError as error:
        raise MatrixError(f"{path}: cannot read the report: {error}") from None
    if not isinstance(document, dict) or document.get("format") != "contracts-verify-report":
        raise MatrixError(f"{path}: not a contracts verify report (format must be 'contracts-verify-report')")
    described = field(document, "engine", dict, str(path))
    engine = one_line(field(described, "name", str, f"{path}: engine"))
    version = one_line(str(described.get("version") or ""))
    levels = field(document, "levels", dict, str(path))
    stated = {
        str(level): str(field(summary, "verdict", str, f"{path}: levels"))
        for level, summary in levels.items()
    }
    cells: dict[str, Cell] = {}
    infos: list[RowInfo] = []
    for index, row in enumerate(field(document, "rows", list, str(path))):
        where = f"{path}: rows[{index}]"
        row_id = one_line(field(row, "id", str, where))
        status = field(row, "status", str, where)
        if status not in MARKS:
            raise MatrixError(f"{where}: unknown status {one_line(repr(status))}")
        reasons = field(row, "reasons", list, where)
        cells[row_id] = Cell(status, one_line("; ".join(str(reason) for reason in reasons)))
        level = one_line(field(row, "level", str, where))
        title, stage = (one_line(field(row, key, str, where)) for key in ("title", "stage"))
        infos.append(RowInfo(row_id, title, stage, level))
    verdicts = recomputed(infos, cells)
    for level, verdict in verdicts.items():
        if stated.get(level) != verdict:
            said = one_line(repr(stated.get(level)))
            raise MatrixError(
                f"{path}: its verdict at level {level} is {said} but its rows give {verdict!r}: "
                "an edited report"
            )
    return Column(engine, cells, version, verdicts), infos


def recomputed(infos: Sequence[RowInfo], cells: Mapping[str, Cell]) -> dict[str, str]:
    """Each level's verdict from the statuses of its rows, as verify gives it (report.verdict_of)."""
    by_level: dict[str, list[str]] = {}
    for info in infos:
        by_level.setdefault(info.level, []).append(cells[info.id].status)
    return {level: verdict_of(statuses) for level, statuses in by_level.items()}


@dataclass(frozen=True)
class Matrix:
    rows: list[RowInfo]
    columns: list[Column]

    def cell(self, column: Column, row_id: str) -> Cell:
        return column.cells.get(row_id, Cell(ABSENT, "not in this report"))

    def counts(self, column: Column, stage: str | None = None) -> dict[str, int]:
        counted = {status: 0 for status in MARKS}
        for info in self.rows:
            if stage is None or info.stage == stage:
                counted[self.cell(column, info.id).status] += 1
        return counted

    def stages(self) -> list[str]:
        return sorted({info.stage for info in self.rows})

    def levels(self) -> list[str]:
        return [level for level in LEVELS if any(info.level == level for info in self.rows)]

    def level_counts(self, column: Column, level: str) -> dict[str, int]:
        counted = {status: 0 for status in MARKS}
        for info in self.rows:
            if info.level == level:
                counted[self.cell(column, info.id).status] += 1
        return counted

    def level_cell(self, column: Column, level: str) -> str:
        """An engine's verdict at one level (that level's rows alone) and the rows behind it."""
        verdict = column.verdicts[level].upper() if level in column.verdicts else "NOT IN THIS REPORT"
        return f"{verdict}: {summary(self.level_counts(column, level))}"


def build(reports: Sequence[tuple[Column, list[RowInfo]]]) -> Matrix:
    """Every row of any report, in the first report's order, then new ones in the order met."""
    seen: dict[str, RowInfo] = {}
    for _, infos in reports:
        for info in infos:
            seen.setdefault(info.id, info)
    return Matrix(list(seen.values()), [column for column, _ in reports])


def summary(counts: dict[str, int]) -> str:
    return ", ".join(f"{counts[status]} {status}" for status in MARKS if counts[status])


def cell_text(text: str) -> str:
    """Text inside a markdown table cell: a pipe would end the cell."""
    return text.replace("|", "\\|")


def code(text: str) -> str:
    """A markdown code span in a table cell, whatever backticks the text holds."""
    return f"`` {cell_text(text)} ``" if "`" in text else f"`{cell_text(text)}`"


def to_markdown(matrix: Matrix) -> str:
    engines = [cell_text(column.engine) for column in matrix.columns]
    levels = matrix.levels()
    lines = ["| engine | version | " + " | ".join(f"level {level}" for level in levels) + " |"]
    lines.append("| --- | --- |" + " --- |" * len(levels))
    for column, engine in zip(matrix.columns, engines):
        cells = " | ".join(matrix.level_cell(column, level) for level in levels)
        lines.append(f"| {engine} | {cell_text(column.version or '-')} | {cells} |")
    lines += ["", "| row | level | " + " | ".join(engines) + " |", "| --- | --- |" + " --- |" * len(engines)]
    for info in matrix.rows:
        marks = [MARKS[matrix.cell(column, info.id).status] for column in matrix.columns]
        lines.append(f"| {code(info.id)} | {cell_text(info.level)} | " + " | ".join(marks) + " |")
    stages = [f"stage {cell_text(stage)}" for stage in matrix.stages()]
    lines += ["", "| engine | " + " | ".join(stages) + " | all |", "| --- |" + " --- |" * (len(stages) + 1)]
    for column, engine in zip(matrix.columns, engines):
        per_stage = [summary(matrix.counts(column, stage)) for stage in matrix.stages()]
        lines.append(f"| {engine} | " + " | ".join(per_stage) + f" | {summary(matrix.counts(column))} |")
    return "\n".join(lines) + "\n"


def html_cell(cell: Cell) -> str:
    reason = html.escape(cell.reason or cell.status)  # quotes too: it sits in an attribute
    colour = COLOURS[cell.status]
    return f'<td style="background:{colour}" title="{reason}">{html.escape(MARKS[cell.status])}</td>'


def to_html(matrix: Matrix) -> str:
    head = "".join(f"<th>{html.escape(column.engine)}</th>" for column in matrix.columns)
    body = []
    for info in matrix.rows:
        cells = "".join(html_cell(matrix.cell(column, info.id)) for column in matrix.columns)
        title = html.escape(info.title)  # quotes too: it sits in an attribute
        code = f"<code>{html.escape(info.id)}</code>"
        body.append(f'<tr><th title="{title}">{code}</th><td>{html.escape(info.level)}</td>{cells}</tr>')
    levels = matrix.levels()
    level_head = "".join(f"<th>level {html.escape(level)}</th>" for level in levels)
    level_rows = [
        f"<tr><th>{html.escape(column.engine)}</th><td>{html.escape(column.version or '-')}</td>"
        + "".join(f"<td>{html.escape(matrix.level_cell(column, level))}</td>" for level in levels)
        + "</tr>"
        for column in matrix.columns
    ]
    stages = matrix.stages()
    stage_head = "".join(f"<th>stage {html.escape(stage)}</th>" for stage in stages)
    stage_rows = [
        f"<tr><th>{html.escape(column.engine)}</th>"
        + "".join(f"<td>{html.escape(summary(matrix.counts(column, stage)))}</td>" for stage in stages)
        + f"<td>{html.escape(summary(matrix.counts(column)))}</td></tr>"
        for column in matrix.columns
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>contracts conformance matrix'
        "</title>\n<style>body{font-family:sans-serif}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #999;padding:2px 6px;text-align:left}td{text-align:center}</style>"
        "</head><body>\n<h1>Conformance matrix</h1>\n"
        f"<table><tr><th>engine</th><th>version</th>{level_head}</tr>{''.join(level_rows)}</table>\n"
        f"<table><tr><th>engine</th>{stage_head}<th>all</th></tr>{''.join(stage_rows)}</table>\n"
        f"<table><tr><th>row</th><th>level</th>{head}</tr>\n"
        + "\n".join(body)
        + "\n</table>\n</body></html>\n"
    )


FORMATTERS: dict[str, Callable[[Matrix], str]] = {"markdown": to_markdown, "html": to_html}


def run_verify(impl: str, out: Path, extra: Sequence[str]) -> None:
    """`contracts verify --impl IMPL --format json -o OUT`; any exit code but 2/3 leaves a report."""
    command = [
        sys.executable,
        "-m",
        "contracts.cli",
        "verify",
        "--impl",
        impl,
        "--format",
        "json",
        "-o",
        str(out),
    ]
    finished = subprocess.run([*command, "-q", *extra])  # its exit code is read below
    if not out.is_file():
        raise MatrixError(f"contracts verify --impl {impl} wrote no report (exit code {finished.returncode})")


# What --help says: prose for the reader, kept as data (tests/cli/test_cli_help.py checks that every
# argument is described and states its default, never the wording).
HELP = {
    "": __doc__,
    "reports": "saved `contracts verify --format json` reports",
    "impl": "run verify for this engine (repeatable)",
    "format": "output format (default: markdown)",
    "output": "write here instead of stdout",
    "verify_arg": "passed to each verify run",
}


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="contracts matrix", description=HELP[""])
    made.add_argument("reports", nargs="*", help=HELP["reports"])
    made.add_argument("--impl", action="append", default=[], help=HELP["impl"])
    made.add_argument("--format", choices=sorted(FORMATTERS), default="markdown", help=HELP["format"])
    made.add_argument("-o", "--output", type=Path, help=HELP["output"])
    made.add_argument("--verify-arg", action="append", default=[], help=HELP["verify_arg"])
    return made


def main(argv: Sequence[str] | None = None) -> int:
    options = parser().parse_args(argv)
    if not options.reports and not options.impl:
        print("contracts matrix: give saved reports or --impl NAME (at least one)", file=sys.stderr)
        return EXIT_INVALID
    reason = None if options.output is None else unwritable(options.output)
    if reason is not None:
        print(f"contracts matrix: cannot write {options.output}: {reason}", file=sys.stderr)
        return EXIT_INVALID
    try:
        with tempfile.TemporaryDirectory(prefix="contracts-matrix-") as scratch:
            paths = [Path(report) for report in options.reports]
            for index, impl in enumerate(options.impl):
                paths.append(Path(scratch) / f"{index}.json")
                run_verify(impl, paths[-1], options.verify_arg)
            text = FORMATTERS[options.format](build([read_report(path) for path in paths]))
    except MatrixError as error:
        print(f"contracts matrix: {error}", file=sys.stderr)
        return EXIT_INVALID
    if options.output is None:
        sys.stdout.write(text)
        return 0
    try:
        write_whole(options.output, text.encode())
    except OutputError as error:
        print(f"contracts matrix: the matrix was not written: {error}", file=sys.stderr)
        return EXIT_OUTPUT
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
