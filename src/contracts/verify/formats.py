"""The verify report as a terminal table, markdown or JSON, and the `contracts specs` listing."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from contracts.verify.junit import format_junit
from contracts.verify.records import FAILED, NOT_APPLICABLE, PASSED
from contracts.verify.report import (
    ADDRESS,
    LEVELS,
    NOT_RUN,
    NOTHING_VERIFIED,
    PARTLY,
    ROW_STATUSES,
    UNBOUND,
    Report,
    ReportedTest,
    RowResult,
    causes,
    levels_up_to,
    summarize,
)

SHORT = {NOT_APPLICABLE: "n/a", PARTLY: "partly"}
TITLE_WIDTH = 48
COLUMNS = ("ID", "LEVEL", "KIND", "STATUS", "CHECKS", "PROPERTY", "GOLDEN", "EXAMPLES", "TIME", "TITLE")


def short(status: str) -> str:
    return SHORT.get(status, status)


def seconds(value: float) -> str:
    return f"{value:.2f}s"


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def coverage(row: RowResult) -> str:
    """engine checks run / the row's checks (the reference's own tests included in the total)."""
    ran, total = row.coverage()
    return f"{ran}/{total}"


def row_cells(row: RowResult) -> tuple[str, ...]:
    return (
        row.id,
        row.level,
        row.kind,
        short(row.status),
        coverage(row),
        short(row.suites["properties"]),
        short(row.suites["golden"]),
        str(row.example_count()),
        seconds(row.duration()),
        row.title,
    )


def align(table: Sequence[Sequence[str]], right: frozenset[int] = frozenset()) -> list[str]:
    """Columns padded to their widest cell (right-aligned where asked); no trailing spaces."""
    widths = [max(len(line[column]) for line in table) for column in range(len(table[0]))]
    lines = []
    for line in table:
        cells = [
            cell.rjust(widths[column]) if column in right else cell.ljust(widths[column])
            for column, cell in enumerate(line)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def workers(count: int) -> str:
    return "auto" if count < 0 else str(count) if count else "none"


def header_lines(report: Report) -> list[str]:
    engine = report.engine
    version = f" {engine['version']}" if engine["version"] else ""
    lines = [
        f"contracts verify: engine {engine['name']}{version} ({engine['target']}), "
        f"hypothesis profile {report.profile}, xdist workers: {workers(report.workers)}",
        f"suite {report.suite} (repro commands run from there)",
    ]
    selection = {key: value for key, value in report.selection.items() if value}
    if selection:
        lines.append("selection: " + ", ".join(f"{key} {value}" for key, value in selection.items()))
    dtype = engine.get("dtype", "float64")
    if dtype != "float64":
        lines.append(
            f"dtype {dtype}: tolerances scale with its epsilon, float64-only rows are n/a (T.rule.tolerance)"
        )
    conventions: Mapping[str, str] = engine["conventions"]
    if conventions:
        lines.append(f"conventions declared by {engine['name']} (reported as not applicable):")
        lines.extend(f"  {row_id}: {why}" for row_id, why in conventions.items())
    return lines


def failure_blocks(tests: Iterable[ReportedTest], indent: str) -> list[str]:
    lines: list[str] = []
    for test in tests:
        record = test.record
        lines.append(f"{indent}{record.outcome}: {record.nodeid}")
        for line in (record.message or "").splitlines():
            lines.append(f"{indent}  | {line}")
        if record.falsifying:
            lines.extend(f"{indent}  > {line}" for line in record.falsifying.splitlines())
        lines.append(f"{indent}  repro: {test.repro}")
    return lines


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def cause_lines(report: Report, indent: str) -> list[str]:
    """The failing rows grouped by shared cause: 'N rows, M causes', then each cause with its rows
    (called only when some row failed, so there is at least one cause)."""
    found = causes(report.rows)
    failing = {row_id for cause in found for row_id in cause.rows}
    lines = [f"failing rows by cause: {plural(len(failing), 'row')}, {plural(len(found), 'cause')}"]
    for number, cause in enumerate(found, 1):
        where = f" in {cause.test}" if cause.test else ""
        lines.append(f"{indent}cause {number}{where}: {cause.signature}")
        lines.append(f"{indent}  {plural(len(cause.rows), 'row')}: {', '.join(cause.rows)}")
        lines.append(f"{indent}  {plural(len(cause.tests), 'test')}: {', '.join(cause.tests)}")
    return lines


def reasons(rows: Iterable[RowResult]) -> dict[str, list[str]]:
    """skip reason -> the rows it applies to (not applicable, partly verified and skipped rows)."""
    grouped: dict[str, list[str]] = {}
    for row in rows:
        for reason in row.reasons:
            grouped.setdefault(reason, []).append(row.id)
    return grouped


ALWAYS_SHOWN = (PASSED, FAILED, NOT_APPLICABLE, UNBOUND)


def summary_table(report: Report) -> list[list[str]]:
    """Rows by stage and status; skipped and deselected only when some row has them."""
    summary = summarize(report.rows)
    totals = summary["by_status"]
    shown = [status for status in ROW_STATUSES if status in ALWAYS_SHOWN or totals[status]]
    table = [["STAGE", "ROWS", *(short(status).upper() for status in shown)]]
    for stage, counts in sorted(summary["by_stage"].items()):
        table.append([stage, str(sum(counts.values())), *(str(counts[s]) for s in shown)])
    table.append(["all", str(summary["rows"]), *(str(totals[s]) for s in shown)])
    return table


LEVEL_COLUMNS = ("LEVEL", "VERDICT", "CATEGORY", "CHECKS RUN", "PASSED", "FAILED", "NOT RUN", "N/A")


def level_word(verdict: str, claimed: bool) -> str:
    word = {PASSED: "PASSED", FAILED: "FAILED"}.get(verdict, verdict)
    return word if claimed else f"({word}, not claimed)"


def level_table(report: Report) -> list[list[str]]:
    """Per level (its own rows), per category: how many of the engine's checks ran, passed, failed,
    could not run after another row's failure in the same test, or were not applicable."""
    table = [list(LEVEL_COLUMNS)]
    for level, summary in report.levels().items():
        first = True
        for category, counts in summary["checks"].items() or [("-", {})]:
            ran = counts.get(PASSED, 0) + counts.get(FAILED, 0)
            cells = [str(ran), *(str(counts.get(o, 0)) for o in (PASSED, FAILED, NOT_RUN, NOT_APPLICABLE))]
            head = [level, level_word(summary["verdict"], summary["claimed"])] if first else ["", ""]
            table.append([*head, category, *cells])
            first = False
    return table


# the first screen: at most this many causes, each with at most this many of its rows named
FIRST_SCREEN_CAUSES = 6
FIRST_SCREEN_ROWS = 8
CALL_WIDTH = 100


def claimed_failures(report: Report) -> list[str]:
    """The failing rows the claim covers, grouped by root cause: each cause with the wrapper it was
    raised as, its rows, the call that raised it and a command that reruns it; the first causes only,
    then how many more the full list below holds."""
    found = causes([row for row in report.claimed() if row.status == FAILED])
    if not found:
        return []
    failing = {row_id for cause in found for row_id in cause.rows}
    lines = [f"failed at the claimed level: {plural(len(failing), 'row')}, {plural(len(found), 'cause')}"]
    for number, cause in enumerate(found[:FIRST_SCREEN_CAUSES], 1):
        where = f" (in {cause.test})" if cause.test else ""
        lines.append(f"  {number}. {ADDRESS.sub('0x…', cause.signature)}{where}")
        if cause.raised_as:
            lines.append(f"     raised as: {clip(ADDRESS.sub('0x…', cause.raised_as), CALL_WIDTH)}")
        named, more = cause.rows[:FIRST_SCREEN_ROWS], len(cause.rows) - FIRST_SCREEN_ROWS
        lines.append(f"     rows: {', '.join(named)}" + (f" and {more} more" if more > 0 else ""))
        if cause.call:
            lines.append(f"     call: {clip(cause.call, CALL_WIDTH)}")
        lines.append(f"     repro: {cause.repro}")  # a failed test always has one (report.reported_test)
    hidden = len(found) - FIRST_SCREEN_CAUSES
    if hidden > 0:
        lines.append(f"  and {plural(hidden, 'more cause')}: 'failing rows by cause' lists every one")
    return lines


def level_summary(report: Report) -> list[str]:
    """The first screen: the claim, the verdict per level and category, then the claimed failures."""
    judged = ", ".join(levels_up_to(report.level))
    lines = [f"judged at level {report.level} (the rows of {judged}); levels: {', '.join(LEVELS)}"]
    table = level_table(report)
    lines.extend(align(table, right=frozenset(range(3, len(LEVEL_COLUMNS)))))
    failures = claimed_failures(report)
    if failures:
        lines += ["", *failures]
    return lines


def unverified_lines(report: Report) -> list[str]:
    """The one-line reason a run proved nothing (every row n/a, skipped or unbound), if it did not."""
    return [] if report.verified_any() else [NOTHING_VERIFIED]


def verdict(report: Report) -> str:
    totals = summarize(report.rows)["by_status"]
    counts = ", ".join(f"{totals[status]} {status}" for status in ROW_STATUSES if totals[status])
    word = "OK" if report.exit_code() == 0 else "FAILED"
    rows = f"{len(report.rows)} rows: {counts or 'none'}"
    return f"{word} at level {report.level}: {rows} in {report.duration:.1f}s"


def other_problem_lines(report: Report, indent: str) -> list[str]:
    """Problems outside the rows: failing tests naming no row, unknown ids, collection errors, pytest."""
    lines: list[str] = []
    failing = [t for t in report.other_tests if t.repro is not None]
    if failing:
        lines.append("tests naming no spec row that failed:")
        lines.extend(failure_blocks(failing, indent))
    if report.unknown_ids:
        lines.append("spec ids that tests name but no spec has:")
        for spec_id, nodeids in report.unknown_ids.items():
            lines.append(f"{indent}{spec_id}: named by {', '.join(nodeids)}")
    for error in report.collection_errors:
        lines.append(f"collection error in {error['nodeid']}:")
        lines.extend(f"{indent}| {line}" for line in error["message"].splitlines()[-15:])
    if report.pytest_crashed():
        lines.append(
            f"pytest exited with code {report.pytest_exit_code} (keep its output with --pytest-log FILE)"
        )
    return lines


def format_table(report: Report) -> str:
    lines = header_lines(report)
    lines += ["", *level_summary(report), ""]
    table = [list(COLUMNS)] + [[*row_cells(row)[:-1], clip(row.title, TITLE_WIDTH)] for row in report.rows]
    lines.extend(align(table, right=frozenset({7, 8})))
    failed = [row for row in report.rows if row.failures()]
    if failed:
        lines += ["", *cause_lines(report, "  ")]
        lines += ["", "failures:"]
        for row in failed:
            lines.append(f"  {row.id} ({row.kind}, {row.level}, {row.category}): {row.title}")
            lines.extend(failure_blocks(row.failures(), "    "))
    grouped = reasons(report.rows)
    if grouped:
        lines += ["", "not applicable, partly verified or skipped, by reason:"]
        for reason, ids in grouped.items():
            lines.append(f"  {reason}")
            lines.append(f"    {', '.join(ids)}")
    others = other_problem_lines(report, "  ")
    if others:
        lines += ["", *others]
    summary = summary_table(report)
    lines += ["", *align(summary, right=frozenset(range(1, len(summary[0])))), ""]
    lines.extend(unverified_lines(report))
    lines.append(verdict(report))
    return "\n".join(lines) + "\n"


def md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def md_table(table: Sequence[Sequence[str]]) -> list[str]:
    header, *body = table
    lines = ["| " + " | ".join(md_cell(cell) for cell in header) + " |", "|" + " --- |" * len(header)]
    lines.extend("| " + " | ".join(md_cell(cell) for cell in line) + " |" for line in body)
    return lines


def format_markdown(report: Report) -> str:
    lines = ["# contracts verify", ""]
    lines.extend(f"{line}  " for line in header_lines(report))
    lines += [
        "",
        "## Levels",
        "",
        f"Judged at level {report.level} (the rows of {', '.join(levels_up_to(report.level))}).",
        "",
    ]
    lines.extend(md_table(level_table(report)))
    failures = claimed_failures(report)
    if failures:
        lines += ["", "```text", *failures, "```"]
    lines += ["", "## Rows", ""]
    table = [["id", "level", "kind", "status", "checks", "property", "golden", "examples", "time", "title"]]
    table += [[f"`{row.id}`", *row_cells(row)[1:]] for row in report.rows]
    lines.extend(md_table(table))
    failed = [row for row in report.rows if row.failures()]
    if failed:
        lines += ["", "## Failures by cause", "", "```text", *cause_lines(report, "  "), "```"]
        lines += ["", "## Failures"]
        for row in failed:
            lines += ["", f"### `{row.id}` ({row.kind}): {row.title}", ""]
            for test in row.failures():
                lines += [f"- `{test.record.nodeid}` {test.record.outcome}", "", "```text"]
                lines.append(test.record.message or "")
                if test.record.falsifying:
                    lines.append(test.record.falsifying)
                lines += ["```", "", "```sh", f"{test.repro}", "```"]  # a failure always has one
    grouped = reasons(report.rows)
    if grouped:
        lines += ["", "## Not applicable, partly verified or skipped", ""]
        lines.extend(
            f"- {md_cell(reason)}: {', '.join(f'`{i}`' for i in ids)}" for reason, ids in grouped.items()
        )
    others = other_problem_lines(report, "    ")
    if others:
        lines += ["", "## Other problems", "", "```text", *others, "```"]
    lines += ["", "## Summary", ""]
    lines.extend(md_table(summary_table(report)))
    lines += [
        "",
        *unverified_lines(report),
        f"**{verdict(report)}**",
    ]
    return "\n".join(lines) + "\n"


def format_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


FORMATS = {"table": format_table, "markdown": format_markdown, "json": format_json, "junit": format_junit}


# ---------------------------------------------------------------- contracts specs


def row_summary(row: Mapping[str, Any]) -> tuple[str, str, str]:
    """(formula or statement, where blocked, exception) of a spec row, by kind."""
    kind = row["kind"]
    if kind == "formula":
        return f"{row['expr']}", "", ""
    if kind == "gradient":
        grads = ", ".join(f"d{name}: {text}" for name, text in row["grads"].items())
        return f"{row['op']}: {row['forward']}; {grads}", "", ""
    if kind == "failure":
        return row["title"], row["blocked_at"], row["exception"]
    if kind == "contract":
        return "enforced by " + ", ".join(row["enforced_by"]), row["blocked_at"], ""
    return str(row.get("statement", row["title"])), "", ""


SPECS_FORMATS = ("table", "markdown", "json")  # `contracts specs --format`


def format_specs(rows: Iterable[Mapping[str, Any]], fmt: str, width: int = 70) -> str:
    """The rows with id, kind, formula (or statement), where blocked and exception; fmt is json,
    markdown or table (anything else is a ValueError)."""
    if fmt not in SPECS_FORMATS:
        raise ValueError(f"format {fmt!r}: expected one of {', '.join(SPECS_FORMATS)}")
    listed = [(str(row["id"]), str(row["kind"]), *row_summary(row)) for row in rows]
    if fmt == "json":
        keys = ("id", "kind", "formula", "blocked_at", "exception")
        return json.dumps([dict(zip(keys, line)) for line in listed], indent=2) + "\n"
    header = ("ID", "KIND", "FORMULA / STATEMENT", "BLOCKED AT", "EXCEPTION")
    if fmt == "markdown":
        return "\n".join(md_table([header, *listed])) + "\n"
    table = [header, *((i, k, clip(f, width), clip(b, 50), e) for i, k, f, b, e in listed)]
    return "\n".join(align(table)) + f"\n{len(listed)} rows\n"
