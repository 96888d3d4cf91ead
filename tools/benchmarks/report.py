"""Rows of the figures table and their plain-text / Markdown rendering."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tools.benchmarks.timing import Ratio, Sample, format_seconds, paired_ratio


@dataclass(frozen=True)
class Row:
    """One line of the table: a ratio against a goal, or (ratio None) an absolute figure in note."""

    figure: str
    measured: str
    baseline: str
    ratio: Ratio | None
    goal: float | None
    measured_time: str
    baseline_time: str
    note: str = ""

    def verdict(self) -> str:
        if self.ratio is None or self.goal is None:
            return "-"
        return "met" if self.ratio.median <= self.goal else "MISSED"

    def ratio_text(self) -> str:
        if self.ratio is None:
            return "-"
        return f"{self.ratio.median:.3f}× [{self.ratio.low:.3f}–{self.ratio.high:.3f}]"

    def goal_text(self) -> str:
        return "-" if self.goal is None else f"≤ {self.goal:g}×"

    def cells(self) -> tuple[str, ...]:
        return (
            self.figure,
            self.measured,
            self.baseline,
            self.ratio_text(),
            self.goal_text(),
            self.verdict(),
            self.measured_time,
            self.baseline_time,
            self.note,
        )


HEADER = ("figure", "measured", "against", "ratio [IQR]", "goal", "verdict", "measured", "baseline", "note")


def ratio_row(
    figure: str,
    measured: Sample,
    baseline: Sample,
    goal: float | None,
    note: str = "",
    measured_label: str | None = None,
    baseline_label: str | None = None,
) -> Row:
    """A row comparing two candidates timed side by side (per-call medians as absolute times)."""
    return Row(
        figure,
        measured_label or measured.name,
        baseline_label or baseline.name,
        paired_ratio(measured, baseline),
        goal,
        format_seconds(measured.median()),
        format_seconds(baseline.median()),
        note,
    )


def plain_table(rows: Sequence[Row]) -> str:
    table = [HEADER, *(row.cells() for row in rows)]
    widths = [max(len(line[column]) for line in table) for column in range(len(HEADER))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in table
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown_table(rows: Sequence[Row]) -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    return "\n".join([line(HEADER), line(["---"] * len(HEADER)), *(line(row.cells()) for row in rows)])
