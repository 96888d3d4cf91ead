"""What `contracts verify` records about one test: its outcome, the spec rows it names, the examples
hypothesis ran, the falsifying example of a failure. Pure functions over pytest's report data, so
they are tested without running pytest."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from contracts.verify.untrusted import cleaned

# test outcomes
PASSED = "passed"
FAILED = "failed"
ERROR = "error"  # setup or teardown failed
NOT_APPLICABLE = (
    "not applicable"  # skipped by contracts.spec_suite.spec_rows.require: the engine lacks the row
)
SKIPPED = "skipped"  # skipped for any other reason (the row is not proven)
NOT_EXERCISED = "not exercised"  # passed without calling the engine, and not reference-only: no proof
TEST_OUTCOMES = (PASSED, FAILED, ERROR, NOT_APPLICABLE, SKIPPED, NOT_EXERCISED)

NOT_APPLICABLE_PREFIX = "not applicable:"
REFERENCE_ONLY_MARKER = "reference_only"  # pytest marker: the test exercises this project's own types
REFERENCE_ONLY_PREFIX = f"{NOT_APPLICABLE_PREFIX} reference-only:"
SPEC_PROPERTY = "contracts.spec"  # user property holding a test's spec ids (travels with xdist reports)
EXAMPLES_PROPERTY = "contracts.examples"
REFERENCE_ONLY_PROPERTY = "contracts.reference_only"  # the marker's reason, or None
ENGINE_CALLS_PROPERTY = "contracts.engine_calls"  # adapter method calls the test made (the suite records it)
# the module methods a test's builds went through: {"built": [...], "declined": [...]} (ModuleUnsupported)
BUILDS_PROPERTY = "contracts.builds"

# hypothesis names the minimal failing input so (the wording changed across versions)
FALSIFYING_MARKERS = ("Falsifying example", "Falsifying explicit example", "Failing test case")
FALSIFYING_END = (
    "Explanation:",
    "You can reproduce",
    "Unreproducible",
    "Captured ",
    "Failed to reproduce exception",  # a flaky failure's note: the traceback hypothesis expected
)
REPRODUCE = re.compile(r"@reproduce_failure\([^)]*\)")
PHASE = re.compile(r"during (\w+) phase")
CASES = re.compile(r"(\d+) passing, (\d+) failing")
COUNTED_PHASES = frozenset({"explicit", "reuse", "generate", "target"})  # not shrink, not explain


@dataclass
class Record:
    """One test's result, accumulated over its setup, call and teardown reports."""

    nodeid: str
    spec_ids: list[str] = field(default_factory=list)
    outcome: str = PASSED
    reason: str | None = None
    duration: float = 0.0
    examples: int | None = None
    message: str | None = None
    falsifying: str | None = None
    reproduce: str | None = None
    reference_only: str | None = None
    engine_calls: int | None = None
    built: list[str] = field(default_factory=list)  # module methods that returned a module in this test
    declined: list[str] = field(default_factory=list)  # module methods that raised ModuleUnsupported
    # the clauses the test proved ([row id, category or None]) and those that failed (with the reason):
    # a failure is charged to its clause's row (contracts.verify.clauses)
    clauses: list[list[str | None]] = field(default_factory=list)
    failed_clauses: list[list[str | None]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Record:
        return cls(**dict(data))


MULTILINE = frozenset({"message", "falsifying"})  # a record's fields that keep their line breaks


def printable(record: Record) -> Record:
    """The record with every string in it made printable (contracts.verify.untrusted): the suite's
    process, where an adapter runs, wrote it."""
    return Record(**{name: cleaned(value, name in MULTILINE) for name, value in asdict(record).items()})


def skip_reason(longrepr: Any) -> str:
    """The reason of a skip: pytest stores (path, line, 'Skipped: reason')."""
    text = str(longrepr[2]) if isinstance(longrepr, tuple | list) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ").strip()


def skip_outcome(reason: str | None) -> str:
    return NOT_APPLICABLE if reason is not None and reason.startswith(NOT_APPLICABLE_PREFIX) else SKIPPED


def phase_outcome(when: str, outcome: str, reason: str | None) -> str:
    """A test outcome from one phase report (when: setup, call or teardown)."""
    if outcome == "failed":
        return FAILED if when == "call" else ERROR
    if outcome == "skipped":
        return skip_outcome(reason)
    return PASSED


# a later phase's outcome replaces an earlier one only if it is worse (later in this order)
SEVERITY = (PASSED, NOT_APPLICABLE, SKIPPED, NOT_EXERCISED, FAILED, ERROR)


def exercised(record: Record) -> str:
    """A spec test's final outcome: one that passed without calling the engine (no call recorded)
    and is not reference-only proved nothing about the engine, so it is not exercised, never passed."""
    if record.outcome != PASSED or not record.spec_ids or record.reference_only is not None:
        return record.outcome
    return PASSED if record.engine_calls else NOT_EXERCISED


def worse(current: str, new: str) -> str:
    return max(current, new, key=SEVERITY.index)


def spec_ids_of(user_properties: Iterable[Any]) -> list[str]:
    """The spec ids the plugin stored in a report's user properties (tuples, or lists after xdist)."""
    for name, value in user_properties:
        if name == SPEC_PROPERTY:
            return [str(item) for item in value]
    return []


def examples_of(user_properties: Iterable[Any]) -> int | None:
    return int_property(user_properties, EXAMPLES_PROPERTY)


def int_property(user_properties: Iterable[Any], key: str) -> int | None:
    """The last integer stored under key (None if there is none)."""
    found = None
    for name, value in user_properties:
        if name == key and value is not None:
            found = int(value)
    return found


def listed_property(user_properties: Iterable[Any], key: str) -> list[list[str | None]]:
    """Every list stored under key, joined (each entry a list: tuples turn into lists under xdist)."""
    found: list[list[str | None]] = []
    for name, value in user_properties:
        if name == key:
            found.extend([None if item is None else str(item) for item in entry] for entry in value)
    return found


def builds_of(user_properties: Iterable[Any]) -> tuple[list[str], list[str]] | None:
    """The module methods that built, and those that declined, in the test (the suite notes them after
    the test, so the teardown report carries them); None where they are not noted."""
    for name, value in user_properties:
        if name == BUILDS_PROPERTY:
            return [str(item) for item in value["built"]], [str(item) for item in value["declined"]]
    return None


def never_built(records: Iterable[Record]) -> list[str]:
    """Module methods the engine declined in some test and built in none: a capability it declares
    (the suite asks only for declared ones) with nothing built, so nothing of it was verified."""
    built: set[str] = set()
    declined: set[str] = set()
    for record in records:
        built.update(record.built)
        declined.update(record.declined)
    return sorted(declined - built)


def reference_only_of(user_properties: Iterable[Any]) -> str | None:
    for name, value in user_properties:
        if name == REFERENCE_ONLY_PROPERTY:
            return None if value is None else str(value)
    return None


def count_examples(statistics: str) -> int | None:
    """Test cases hypothesis ran (passing + failing) outside shrinking, from its statistics text.

    None when the text holds no phase statistics (or they no longer read as expected).
    """
    phases: dict[str, int] = {}
    for block in re.split(r"(?=during \w+ phase)", statistics):
        phase = PHASE.match(block)
        cases = CASES.search(block)
        if phase is None or cases is None:
            continue
        phases[phase.group(1)] = int(cases.group(1)) + int(cases.group(2))
    if not phases:
        return None
    return sum(count for name, count in phases.items() if name in COUNTED_PHASES)


def strip_error_prefix(line: str) -> str:
    """pytest prefixes exception lines with 'E   '."""
    return line[4:] if line.startswith("E   ") or line == "E" else line


# an exception group's traceback gutter ('  | ', nested groups indent it further: '    | '): a failure
# hypothesis raises as a group (a FlakyFailure, several distinct failures) prints its notes, the
# falsifying example among them, behind it
GROUP_GUTTER = re.compile(r"^ *\|(?: |$)")


def strip_group_gutter(line: str) -> str:
    """The line without an exception group's gutter (at any nesting depth)."""
    return GROUP_GUTTER.sub("", line)  # anchored at the start: at most one match


def falsifying_example(longrepr_text: str) -> str | None:
    """hypothesis's minimal failing input, as printed in the failure report, also inside an exception
    group's traceback (a flaky failure's report); None if there is none."""
    lines = [strip_error_prefix(strip_group_gutter(line)) for line in longrepr_text.splitlines()]
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith(FALSIFYING_MARKERS)]
    if not starts:
        return None
    block: list[str] = []
    for line in lines[starts[-1] :]:
        if block and (line.lstrip().startswith(FALSIFYING_END) or not line.strip()):
            break
        block.append(line.rstrip())
    return "\n".join(block)


def reproduce_decorator(longrepr_text: str) -> str | None:
    found = REPRODUCE.findall(longrepr_text)
    return found[-1] if found else None


SUB_EXCEPTION = re.compile(r"^\s*\|\s*([A-Za-z_][\w.]*(?:Error|Exception|Failure)\b.*)$")


def crash_message(longrepr: Any, longrepr_text: str) -> str:
    """The failing line (e.g. the assertion), from the crash entry if pytest kept one, without the
    falsifying example (kept apart); for an exception group, its distinct sub-exceptions too."""
    crash = getattr(longrepr, "reprcrash", None)
    message = str(getattr(crash, "message", None) or "").strip()
    if not message:
        error_lines = [line[4:] for line in longrepr_text.splitlines() if line.startswith("E   ")]
        lines = error_lines or [line for line in longrepr_text.splitlines() if line.strip()]
        message = (lines[0] if error_lines else lines[-1]).strip() if lines else ""
    kept: list[str] = []
    for line in message.splitlines():
        if line.lstrip().startswith((*FALSIFYING_MARKERS, *FALSIFYING_END)):
            break
        kept.append(line.rstrip())
    message = "\n".join(kept).strip()
    subs = sub_exceptions(longrepr_text)
    chain = "".join(f"\n{CAUSED_BY}{cause}" for cause in cause_chain(longrepr_text))
    return message + chain + (f"\n{SUB_EXCEPTIONS}" + "; ".join(subs) if subs else "")


# how a record's message lists what the failure was raised from, and an exception group's members
CAUSED_BY = "caused by: "
SUB_EXCEPTIONS = "sub-exceptions: "


CHAIN_MARKERS = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)


def cause_chain(longrepr_text: str) -> list[str]:
    """The exceptions a failure was raised from (its __cause__ / __context__ chain), nearest first:
    pytest prints each before the one it caused, separated by CHAIN_MARKERS."""
    segments = re.split("|".join(re.escape(marker) for marker in CHAIN_MARKERS), longrepr_text)
    found: list[str] = []
    for segment in reversed(segments[:-1]):
        lines = [line.strip() for line in segment.splitlines() if line.strip()]
        errors = [line[4:].strip() for line in segment.splitlines() if line.startswith("E   ")]
        if errors or lines:  # an exception raised nowhere (no traceback) is printed bare, without "E"
            found.append(errors[0] if errors else lines[-1])
    return found


def sub_exceptions(longrepr_text: str) -> list[str]:
    """Distinct exception lines inside an exception group's traceback ('| ValueError: ...')."""
    found: list[str] = []
    for line in longrepr_text.splitlines():
        match = SUB_EXCEPTION.match(line)
        if match and match.group(1) not in found:
            found.append(match.group(1))
    return found
