"""The mutation gate: one rule for mutmut's mutants and for the spec and statement mutants.

A mutant is keyed by (owner, change): its function (or spec row) and what it changes (see
tools.mutation.mutants and tools.spec_mutation). A reviewed list names the mutants no test can kill,
each with its reason (tools/mutation/equivalents.toml, tools/spec_mutation/equivalents.toml).

    score = (killed + timeout) / (total - skipped - listed equivalents)

What the gate does with each verdict:
  killed, timeout, caught by type check    detected; a listed one fails the gate (remove it from the list)
  survived, no tests, suspicious, segfault   fails the gate unless listed
  skipped, satisfied                         outside the score (mutmut did not run it; a probe
                                             extension the implementation already meets is no mutant)
  anything else (not checked, not run, ...)  the mutant did not finish: fails the gate, listed or not

It fails, too, on a listed entry that matches no mutant of today's code (stale): existence is judged
against the enumeration of every mutant, not against what ran, so a sample or a shard fails on a
stale entry as a whole run does; on no verdict at all; and on a score below the threshold (95 %).
It prints the score, each problem on one line, and last `<name> gate: passed` or `failed`.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

THRESHOLD = 0.95
DETECTED = frozenset({"killed", "timeout", "caught by type check"})
NOT_KILLED = frozenset({"survived", "no tests", "suspicious", "segfault"})
OUTSIDE = frozenset({"skipped", "satisfied"})

Key = tuple[str, str]  # (function or row, change)


def shown(key: Key) -> str:
    """A key on one line: `owner: change`, the change's lines joined by ' | '."""
    owner, change = key
    return f"{owner}: {change.replace(chr(10), ' | ')}"


@dataclass
class Judgement:
    """The gate's verdict over one set of mutant verdicts."""

    counts: dict[str, int]
    problems: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        judged = self.counts["total"] - self.counts["outside"] - self.counts["equivalent"]
        return self.counts["detected"] / judged if judged > 0 else 1.0

    @property
    def passed(self) -> bool:
        return not self.problems


def judge(
    verdicts: Mapping[Key, str],
    existing: Collection[Key],
    listed: Mapping[Key, str],
    threshold: float = THRESHOLD,
    list_path: Path | str = "the list",
) -> Judgement:
    """The gate over the verdicts (of every mutant, or of a sample), with every mutant of today's code
    (`existing`) and the reviewed list."""
    counts = {"total": 0, "detected": 0, "not killed": 0, "equivalent": 0, "outside": 0, "unfinished": 0}
    problems: list[str] = []
    for key in sorted(verdicts):
        status = verdicts[key]
        counts["total"] += 1
        if status in OUTSIDE:
            counts["outside"] += 1
        elif status in DETECTED:
            counts["detected"] += 1
            if key in listed:
                problems.append(f"listed mutant is {status}: {shown(key)}; remove it from {list_path}")
        elif status in NOT_KILLED:
            counts["not killed"] += 1
            if key in listed:
                counts["equivalent"] += 1
            else:
                problems.append(
                    f"unlisted {status} mutant: {shown(key)} (kill it, or list it in {list_path})"
                )
        else:
            counts["unfinished"] += 1
            problems.append(f"mutant did not finish ({status}): {shown(key)}; run it again")
    existing_keys = set(existing)
    problems.extend(
        f"listed mutant matches no mutant of today's code: {shown(key)}; remove it from {list_path}"
        for key in sorted(set(listed) - existing_keys)
    )
    judgement = Judgement(counts, problems)
    if counts["total"] == 0:
        judgement.problems.append("no mutant was judged")
    elif judgement.score < threshold:
        judgement.problems.append(f"score {judgement.score:.2%} is below the threshold {threshold:.0%}")
    return judgement


def report(name: str, judgement: Judgement, threshold: float = THRESHOLD) -> list[str]:
    """The lines the gate prints: the score and counts, each problem, and the verdict last."""
    counts = judgement.counts
    unexplained = counts["not killed"] - counts["equivalent"]
    lines = [
        f"{name} score {judgement.score:.2%} (threshold {threshold:.0%}): {counts['detected']} killed, "
        f"{unexplained} not killed, {counts['equivalent']} listed equivalent, {counts['unfinished']} "
        f"unfinished, {counts['outside']} outside the score, of {counts['total']} mutants"
    ]
    lines.extend(f"FAIL: {problem}" for problem in judgement.problems)
    lines.append(f"{name} gate: {'passed' if judgement.passed else 'failed'}")
    return lines


def gate(
    name: str,
    verdicts: Mapping[Key, str],
    existing: Collection[Key],
    listed: Mapping[Key, str],
    threshold: float = THRESHOLD,
    list_path: Path | str = "the list",
    extra: Iterable[str] = (),
) -> int:
    """Judge, print the report (extra problems of the caller's own, e.g. a row without mutants, too),
    and return the exit code: 0 passed, 1 failed."""
    judgement = judge(verdicts, existing, listed, threshold, list_path)
    judgement.problems[:0] = list(extra)
    for line in report(name, judgement, threshold):
        print(line)
    return 0 if judgement.passed else 1


# --- the reviewed lists: [[mutant]] entries with `function` (or `row`), `change` and `reason` --------


def change_text(entry: Mapping[str, Any]) -> str:
    """An entry's change: a string, or a list of lines (mutmut's multi-line changes)."""
    change = entry.get("change")
    if isinstance(change, list):
        return "\n".join(str(line) for line in change)
    return str(change)


def load_listed(path: Path, table: str = "mutant") -> dict[Key, str]:
    """(owner, change) -> reviewed reason, from the [[table]] entries of a TOML file (none: empty)."""
    if not path.exists():
        return {}
    with path.open("rb") as file:
        document = tomllib.load(file)
    listed: dict[Key, str] = {}
    for entry in document.get(table, []):
        owner = entry.get("function", entry.get("row"))
        reason = str(entry.get("reason", "")).strip()
        if not owner or "change" not in entry:
            raise ValueError(f"{path}: a [[{table}]] entry needs `function` (or `row`) and `change`: {entry}")
        key = (str(owner), change_text(entry))
        if not reason:
            raise ValueError(f"{path}: {shown(key)} is listed without a reason")
        if key in listed:
            raise ValueError(f"{path}: {shown(key)} is listed twice")
        listed[key] = reason
    return listed


def toml_string(text: str) -> str:
    """A TOML string: literal ('...') when it can be, else basic with JSON's escapes."""
    if "'" not in text and "\n" not in text and all(ch >= " " or ch == "\t" for ch in text):
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def dump_listed(entries: Sequence[tuple[str, Key, str]], header: str = "") -> str:
    """The list as TOML: each entry (owner field, key, reason) as a [[mutant]] table; a change of several
    lines as an array of its lines."""
    parts = [header.rstrip("\n") + "\n"] if header else []
    for owner_field, (owner, change), reason in entries:
        lines = change.split("\n")
        if len(lines) == 1:
            written = toml_string(change)
        else:
            written = "[\n" + "".join(f"    {toml_string(line)},\n" for line in lines) + "]"
        parts.append(
            f"\n[[mutant]]\n{owner_field} = {toml_string(owner)}\nchange = {written}\n"
            f"reason = {toml_string(reason)}\n"
        )
    return "".join(parts)
