"""Hostile spec inputs: each ends fast in one error line and exit code 2 ("the spec is invalid")."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from contracts.cli.commands import main
from tests.common.paths import SPECS

REPO = Path(__file__).resolve().parents[2]
SCHEMA = (SPECS / "schema.json").read_bytes()

HEAD = '[meta]\nstage = "99"\ntitle = "hostile"\nseed = "none"\n'


def formula(expr: str, where: str = "{ K = 2 }", row_id: str = "X99.cost.dot") -> str:
    return (
        f'{HEAD}\n[[rows]]\nid = "{row_id}"\nkind = "formula"\ntitle = "f"\norigin = "decision"\n'
        f'level = "contract"\ncategory = "cost"\n'
        f'expr = "{expr}"\nsymbols = {{ K = {{ min = 1, max = 3 }} }}\ncompared_with = ["planner"]\n'
        f"examples = [{{ where = {where}, value = 3 }}]\n"
    )


VALID = formula("2*K - 1")

HOSTILE = [
    pytest.param(
        {"a.toml": formula("((((K**64)**64)**64)**64)**64")},
        r"a\.toml: row 'X99\.cost\.dot': examples/0: expr does not evaluate at \{'K': 2\} \(ExpressionError: "
        r"65-bit integer \*\* 64 would have up to 4160 bits, more than 1024",
        id="tower-of-powers",
    ),
    pytest.param(
        {"a.toml": formula("-" * 200 + "K")},
        r"a\.toml: row 'X99\.cost\.dot': expr: an expression may nest at most 100 levels deep",
        id="expression-nested-200-deep",
    ),
    pytest.param(
        {"a.toml": formula("K" + " + K" * 1000)},
        r"a\.toml: row 'X99\.cost\.dot': expr: an expression may have at most 2000 characters, "
        r"this one has 4001",
        id="expression-of-4001-characters",
    ),
    pytest.param(
        {"a.toml": formula("K + " + "9" * 400)},
        r"a\.toml: row 'X99\.cost\.dot': expr: an integer constant has more than 1024 bits in 'K \+ 9999",
        id="400-digit-constant-in-expression",
    ),
    pytest.param(
        {"a.toml": formula("1 / (K - 2)")},
        r"a\.toml: row 'X99\.cost\.dot': examples/0: expr does not evaluate at \{'K': 2\} "
        r"\(ZeroDivisionError: division by zero\)$",
        id="formula-that-does-not-evaluate",
    ),
    pytest.param(
        {"a.toml": formula("2*K", where='{ K = "x" }')},
        r"a\.toml: row 'X99\.cost\.dot': rows/0/examples/0/where/K: 'x' is not of type 'number'",
        id="example-bound-to-a-string",
    ),
    pytest.param(
        {"a.toml": formula("2*J")},
        r"a\.toml: row 'X99\.cost\.dot': expr: unknown name 'J' in '2\*J'",
        id="unknown-symbol",
    ),
    pytest.param(
        {"a.toml": VALID + "big = " + "9" * 5000 + "\n"},
        r"a\.toml: not valid TOML \(Exceeds the limit \(4300 digits\)",
        id="5000-digit-integer",
    ),
    pytest.param(
        {"a.toml": formula("2*K", where="{ K = 99999999999999999999 }")},
        r"a\.toml: row 'X99\.cost\.dot': rows/0/examples/0/where/K: an integer of 67 bits is outside "
        r"TOML's 64-bit range",
        id="integer-beyond-64-bits",
    ),
    pytest.param(
        {"a.toml": VALID + ".".join(["k"] * 20000) + " = 1\n"},
        r"a\.toml: line 17: a dotted key of 20000 parts \(at most 8\)$",
        id="dotted-key-of-20000-parts",
    ),
    pytest.param(
        {"a.toml": VALID + "deep = " + "[" * 500 + "]" * 500 + "\n"},
        r"a\.toml: line 17: brackets nested more than 32 deep$",
        id="arrays-500-deep",
    ),
    pytest.param(  # tomllib recurses per inline table: 3000 deep would escape as a RecursionError
        {"a.toml": VALID + "deep = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n"},
        r"a\.toml: line 17: brackets nested more than 32 deep$",
        id="inline-tables-3000-deep",
    ),
    pytest.param(
        {"a.toml": VALID.encode() + b'note = "\xff\xfe"\n'},
        rf"a\.toml: not UTF-8 \(byte 0xff at offset {len(VALID) + len('note = ') + 1}\)$",
        id="not-utf-8",
    ),
    pytest.param(
        {"a.toml": VALID + "# padding\n" * 14000},
        r"a\.toml: larger than 131072 bytes$",
        id="file-of-140-kb",
    ),
    pytest.param(
        {"a.toml": VALID, "schema.json": b"{not json"},
        r"schema\.json: not valid JSON \(JSONDecodeError: Expecting property name",
        id="schema-not-json",
    ),
    pytest.param(
        {"a.toml": VALID, "schema.json": b"\xff{}"},
        r"schema\.json: not UTF-8 \(byte 0xff at offset 0\)$",
        id="schema-not-utf-8",
    ),
    pytest.param(
        {"a.toml": VALID, "schema.json": b"[" * 100_000},
        r"schema\.json: not valid JSON \(RecursionError: maximum recursion depth exceeded",
        id="schema-nested-100000-deep",
    ),
    pytest.param(
        {"a.toml": VALID, "schema.json": b'{"type": 5}'},
        r"schema\.json: not a valid JSON Schema \(5 is not valid under any of the given schemas\)$",
        id="schema-not-a-json-schema",
    ),
    pytest.param(
        {"a.toml": VALID, "schema.json": None},
        r"cannot load the spec rows from .*: \[Errno 2\] No such file or directory: .*schema\.json'$",
        id="schema-missing",
    ),
    pytest.param({}, r"no spec files \(\*\.toml\)$", id="no-spec-files"),
    pytest.param(
        {"a.toml": VALID, "b.toml": VALID},
        r"b\.toml: row 'X99\.cost\.dot': id already used in a\.toml$",
        id="duplicate-id-across-files",
    ),
    pytest.param(
        {"a.toml": formula("2*K", row_id="X99." + "A" * 5000)},
        r"a\.toml: row 'X99\.A{400,}\.\.\.$",
        id="row-id-of-5000-characters-is-clipped",
    ),
]


def write(directory: Path, files: dict[str, str | bytes | None]) -> Path:
    directory.mkdir(exist_ok=True)
    everything: dict[str, str | bytes | None] = {"schema.json": SCHEMA, **files}
    for name, content in everything.items():
        if content is not None:
            (directory / name).write_bytes(content.encode() if isinstance(content, str) else content)
    return directory


@pytest.mark.parametrize(("files", "message"), HOSTILE)
def test_hostile_spec_is_one_error_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str | bytes | None], message: str
) -> None:
    """`contracts specs` on a hostile spec directory: exit 2, one stderr line naming the cause, no output."""
    directory = write(tmp_path / "specs", files)
    code = main(["specs", "--specs", str(directory)])
    captured = capsys.readouterr()
    assert (2, "") == (code, captured.out)
    assert [captured.err.rstrip("\n")] == captured.err.splitlines()
    assert captured.err.startswith(f"contracts specs: error: cannot load the spec rows from {directory}: ")
    assert len(captured.err) < 700

    assert re.search(message, captured.err.rstrip("\n")), captured.err


def test_the_valid_twin_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The spec every hostile case starts from is valid: the table's refusals come from the hostile part."""
    directory = write(tmp_path / "specs", {"a.toml": VALID})
    assert 0 == main(["specs", "--specs", str(directory)])
    assert "X99.cost.dot" in capsys.readouterr().out


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="a child imports the installed package")
def test_hostile_spec_through_the_command_line(tmp_path: Path) -> None:
    """The real entry point in a child process: a 20,000-part dotted key ends with exit 2, no traceback."""
    directory = write(tmp_path / "specs", {"a.toml": VALID + ".".join(["k"] * 20000) + " = 1\n"})
    environment = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    completed = subprocess.run(
        [sys.executable, "-m", "contracts.cli", "specs", "--specs", str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
        check=False,
    )
    assert (2, "", 1) == (completed.returncode, completed.stdout, len(completed.stderr.splitlines()))
    assert "a dotted key of 20000 parts (at most 8)" in completed.stderr


BAD_OPTIONS = [
    pytest.param(
        ["specs", "--hypothesis-profile", "nope"], "unrecognized arguments: --hypothesis-profile nope"
    ),
    pytest.param(
        ["specs", "--kind", "poem"], "argument --kind: invalid choice: 'poem'", id="specs-unknown-kind"
    ),
    pytest.param(
        ["specs", "--format", "xml"], "argument --format: invalid choice: 'xml'", id="specs-unknown-format"
    ),
    pytest.param(
        ["specs", "--rows"], "argument --rows: expected one argument", id="specs-rows-without-value"
    ),
    pytest.param(
        ["specs", "--specs", "/nonexistent/specs"],
        r"cannot load the spec rows from /nonexistent/specs: \[Errno 2\] No such file",
        id="specs-missing-directory",
    ),
    pytest.param(["plan", "--widths", "3,x"], "widths must be comma-separated ints like 3,4,2, got '3,x'"),
    pytest.param(["plan", "--widths", "3,4", "--tokens", "1e400"], "argument --tokens: invalid int value"),
    pytest.param(
        ["plan", "--widths", "3,4", "--tokens", "0"], "tokens T must be >= 1, got 0", id="plan-no-tokens"
    ),
    pytest.param(
        ["plan", "--widths", "3," + "9" * 5000], "widths must be comma-separated ints", id="plan-5000-digits"
    ),
    pytest.param(["plan", "--widths", "3,4", "--profile", "x"], "unrecognized arguments: --profile x"),
    pytest.param(["plan"], "the following arguments are required: --widths", id="plan-without-widths"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_OPTIONS)
def test_bad_options_end_in_one_error_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    """Bad `specs`/`plan` options: exit 2, nothing on stdout, one error line (after argparse's usage)."""
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's usage errors
        code = int(str(stop.code))
    captured = capsys.readouterr()
    assert (2, "") == (code, captured.out)
    error_line = captured.err.splitlines()[-1]
    assert error_line.startswith(f"contracts {argv[0]}: error: ")
    assert re.search(message, error_line), captured.err
    assert "Traceback" not in captured.err


def test_listed_kinds_are_the_schema_kinds() -> None:
    """`contracts specs --kind` offers exactly the row kinds specs/schema.json defines."""
    import json

    from contracts.cli.commands import KINDS

    assert json.loads(SCHEMA)["$defs"]["common"]["properties"]["kind"]["enum"] == list(KINDS)
