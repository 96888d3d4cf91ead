"""Load and validate every spec file: one loader, one schema, errors naming file and row.

A spec file is untrusted input: before tomllib sees it, its size, encoding, dotted-key depth and
bracket nesting are checked on the raw text (tomllib's time grows quadratically with a key's parts
and it recurses per bracket), so every malformed or hostile file ends in one SpecError line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema

from contracts.spec.expr import ExpressionError, evaluate, parse_expression
from contracts.spec.functions import KNOWN as KNOWN_FUNCTIONS
from contracts.spec.functions import SCALAR

MAX_FILE_BYTES = 128 * 1024  # a spec file (or schema.json); the largest spec today is under 30 KB
MAX_KEY_PARTS = 8  # parts of one dotted key or table header; the specs use 1 or 2
MAX_NESTING = 32  # brackets and braces open at once; the specs use at most 4
MAX_MESSAGE = 500  # characters of one error line (a hostile value is not echoed in full)
INT64 = range(-(2**63), 2**63)  # TOML integers are 64-bit; tomllib alone accepts any size

# Strings and comments, blanked before the raw checks so their text is not mistaken for keys. An
# unterminated string ends at the end of its line (or of the file), so no alternative ever fails
# after a long scan: one linear pass, whatever the text (tomllib reports the syntax error later).
QUOTED_OR_COMMENT = re.compile(
    r'"""[\s\S]*?(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z)|"(?:[^"\\\n]|\\.)*+(?:"|\\?$)|\'[^\'\n]*+(?:\'|$)|#[^\n]*+',
    re.MULTILINE,
)
# A dotted key: starts only where a word starts and never gives back (linear on a long word).
DOTTED = re.compile(r"(?<![A-Za-z0-9_+-])[A-Za-z0-9_+-]++(?:[ \t]*+\.[ \t]*+[A-Za-z0-9_+-]++)+")
BRACKET = re.compile(r"[\[\]{}]")
BARE_WORD = "s"  # what a string or comment becomes for the raw checks: any bare key would do


class SpecError(ValueError):
    """A spec file is malformed: the message names the file and the row."""


def spec_error(message: str) -> SpecError:
    """A SpecError of one line, clipped so a hostile value is not echoed in full."""
    line = message.replace("\n", " ")
    return SpecError(line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 3] + "...")


class SpecRow(Mapping[str, Any]):
    """One row of a spec file: read-only, with the stage and file it came from."""

    __slots__ = ("_data", "file", "functions", "stage")

    def __init__(self, data: dict[str, Any], stage: str, file: str, functions: frozenset[str]) -> None:
        self._data = data
        self.stage = stage
        self.file = file
        self.functions = functions

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"SpecRow({self._data['id']!r})"

    def row_id(self) -> str:
        return str(self._data["id"])

    @property
    def id(self) -> str:
        return self.row_id()

    def row_kind(self) -> str:
        return str(self._data["kind"])

    @property
    def kind(self) -> str:
        return self.row_kind()

    def row_level(self) -> str:
        return str(self._data["level"])

    @property
    def level(self) -> str:
        """Who must meet the row: values, refusals or contract (docs/levels.md)."""
        return self.row_level()

    def row_category(self) -> str:
        return str(self._data["category"])

    @property
    def category(self) -> str:
        """What the row is about: value, gradient, cost, refusal, side-effects, order, precision, identity."""
        return self.row_category()


SPECS_ENV = "CONTRACTS_SPECS"


def spec_dir() -> Path:
    """$CONTRACTS_SPECS if set (a copy of the specs, e.g. a mutated one), else the package's own specs
    (contracts.specs: specs/ at the top of a clone, contracts/specs/ in an installed wheel)."""
    configured = os.environ.get(SPECS_ENV)
    return Path(configured) if configured else package_dir(SPECS_PACKAGE)


SPECS_PACKAGE = "contracts.specs"


def package_dir(name: str) -> Path:
    """The directory a package of this distribution is installed in, found without importing it."""
    found = importlib.util.find_spec(name)
    locations = None if found is None else found.submodule_search_locations
    if not locations:  # only a broken install lacks one
        raise SpecError(f"this install of contracts has no {name}: reinstall it")
    return Path(next(iter(locations))).resolve()


def read_text(path: Path) -> str:
    """The file's text, refused when larger than MAX_FILE_BYTES or not UTF-8 (never read whole first)."""
    with path.open("rb") as file:
        raw = file.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise spec_error(f"{path.name}: larger than {MAX_FILE_BYTES} bytes")
    try:
        return raw.decode()  # UTF-8: bytes.decode's default, whatever the locale
    except UnicodeDecodeError as error:
        raise spec_error(
            f"{path.name}: not UTF-8 (byte {raw[error.start]:#04x} at offset {error.start})"
        ) from None


def schema(directory: Path) -> dict[str, Any]:
    """specs/schema.json, itself checked: valid JSON and a valid JSON Schema (draft 2020-12)."""
    path = directory / "schema.json"
    text = read_text(path)
    try:
        loaded: dict[str, Any] = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise spec_error(f"{path.name}: not valid JSON ({type(error).__name__}: {error})") from None
    try:
        jsonschema.Draft202012Validator.check_schema(loaded)
    except jsonschema.SchemaError as error:
        raise spec_error(f"{path.name}: not a valid JSON Schema ({error.message})") from None
    return loaded


def blank(match: re.Match[str]) -> str:
    """A string or comment becomes one bare word (a quoted key is still a key part); lines stay."""
    return BARE_WORD + "\n" * match.group().count("\n")


def line_of(text: str, position: int) -> int:
    """The 1-based line of text that holds position."""
    return text[:position].count("\n") + 1


def check_raw_text(name: str, text: str) -> None:
    """Refuse what would make tomllib slow or recurse deeply, before it parses anything."""
    plain = QUOTED_OR_COMMENT.sub(blank, text)
    for key in DOTTED.finditer(plain):
        parts = key.group().count(".") + 1
        if parts > MAX_KEY_PARTS:
            line = line_of(plain, key.start())
            raise spec_error(f"{name}: line {line}: a dotted key of {parts} parts (at most {MAX_KEY_PARTS})")
    depth = 0
    for bracket in BRACKET.finditer(plain):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > MAX_NESTING:
            line = line_of(plain, bracket.start())
            raise spec_error(f"{name}: line {line}: brackets nested more than {MAX_NESTING} deep")


def leaves(document: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, value) of every scalar in a parsed document (depth is bounded by check_raw_text)."""
    if isinstance(document, dict):
        for key, value in document.items():
            yield from leaves(value, (*path, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from leaves(value, (*path, index))
    else:
        yield path, document


def parse_document(name: str, text: str) -> dict[str, Any]:
    check_raw_text(name, text)
    try:
        document = tomllib.loads(text)
    except ValueError as error:  # TOMLDecodeError, or an integer beyond Python's digit limit
        raise spec_error(f"{name}: not valid TOML ({error})") from None
    for path, value in leaves(document):
        if type(value) is int and value not in INT64:
            where = "/".join(str(part) for part in path)
            raise spec_error(
                f"{name}: row {row_id_at(document, list(path))}: {where}: an integer of "
                f"{value.bit_length()} bits is outside TOML's 64-bit range"
            )
    return document


def relevance(error: jsonschema.ValidationError) -> tuple[int, str]:
    """The error to report first: the deepest (a broken field, not the row-level "unevaluated" error
    its failing subschema leaves behind), then alphabetical, so the choice is deterministic."""
    return (-len(error.absolute_path), str(error))


def load_spec_file(path: Path, file_schema: dict[str, Any]) -> list[SpecRow]:
    name = path.name
    document = parse_document(name, read_text(path))
    errors = sorted(jsonschema.Draft202012Validator(file_schema).iter_errors(document), key=relevance)
    if errors:
        first = errors[0]
        where = "/".join(str(part) for part in first.absolute_path)
        row_id = row_id_at(document, list(first.absolute_path))
        raise spec_error(f"{name}: row {row_id}: {where}: {first.message}")
    meta = document["meta"]
    functions = frozenset(meta.get("functions", ()))
    unknown = functions - KNOWN_FUNCTIONS
    if unknown:
        raise spec_error(f"{name}: meta.functions names unknown functions {sorted(unknown)}")
    rows = [SpecRow(row, meta["stage"], name, functions) for row in document["rows"]]
    for row in rows:
        check_expressions(row)
        check_examples(row)
        check_cases(row)
    return rows


def row_id_at(document: dict[str, Any], path: list[Any]) -> str:
    if len(path) >= 2 and path[0] == "rows" and isinstance(path[1], int):
        row = document["rows"][path[1]]
        if isinstance(row, dict):
            return repr(row.get("id", f"#{path[1]}"))
    return "-"


def row_expressions(row: SpecRow) -> Iterator[tuple[str, str, frozenset[str]]]:
    """(field, expression, its symbols) for every expression a row holds."""
    if row.kind == "formula":
        yield "expr", row["expr"], frozenset(row["symbols"])
    elif row.kind == "gradient":
        symbols = frozenset(row["domain"]) | frozenset(row.get("constants", {}))
        yield "forward", row["forward"], symbols
        for name, text in row["grads"].items():
            yield f"grads.{name}", text, symbols | {"g"}  # g: the upstream gradient


def check_expressions(row: SpecRow) -> None:
    for field, text, symbols in row_expressions(row):
        try:
            parse_expression(text, symbols, row.functions)
        except ExpressionError as error:
            raise spec_error(f"{row.file}: row {row.id!r}: {field}: {error}") from None


def check_cases(row: SpecRow) -> None:
    """A rule example's `case` is one of the cases its row lists (adapters' conventions name them; a
    precedence example's `case` is its call, not a case id), and every listed case has an example: a
    case no example shows would be claimed without a golden."""
    if row.kind != "rule":
        return
    cases = row.get("cases", {})
    shown = []
    for index, example in enumerate(row.get("examples", ())):
        if "case" in example and example["case"] not in cases:
            raise spec_error(
                f"{row.file}: row {row.id!r}: examples/{index}: case {example['case']!r} is not one of "
                f"the row's cases ({', '.join(cases) or 'none'})"
            )
        shown.append(example.get("case"))
    for case in cases:
        if case not in shown:
            raise spec_error(f"{row.file}: row {row.id!r}: cases/{case}: no example shows case {case!r}")


def check_examples(row: SpecRow) -> None:
    """A formula evaluates at each of its examples: a spec author's error is found here, not by a test."""
    if row.kind != "formula":
        return
    functions = {name: SCALAR[name] for name in row.functions & SCALAR.keys()}
    for index, example in enumerate(row["examples"]):
        try:
            evaluate(row["expr"], example["where"], functions)
        except (ArithmeticError, ValueError, TypeError) as error:  # ExpressionError is a ValueError
            raise spec_error(
                f"{row.file}: row {row.id!r}: examples/{index}: expr does not evaluate at "
                f"{example['where']} ({type(error).__name__}: {error})"
            ) from None


def load_rows(directory: Path | None = None) -> list[SpecRow]:
    """Every row of every specs/*.toml, validated, with ids unique across files."""
    base = directory or spec_dir()
    file_schema = schema(base)
    paths = sorted(base.glob("*.toml"))
    if not paths:
        raise spec_error(f"{base}: no spec files (*.toml)")
    rows: list[SpecRow] = []
    for path in paths:
        rows.extend(load_spec_file(path, file_schema))
    check_references(rows)
    return rows


def check_references(rows: list[SpecRow]) -> None:
    seen: dict[str, str] = {}
    for row in rows:
        if row.id in seen:
            raise spec_error(f"{row.file}: row {row.id!r}: id already used in {seen[row.id]}")
        seen[row.id] = row.file
    for row in rows:
        for target in row.get("enforced_by", ()):
            if target not in seen:
                raise spec_error(f"{row.file}: row {row.id!r}: enforced_by names unknown row {target!r}")
        for target in row.get("float64_only", {}):
            if target not in seen:
                raise spec_error(f"{row.file}: row {row.id!r}: float64_only names unknown row {target!r}")
        named = [*row.get("order", ()), *(target for pair in row.get("unordered", ()) for target in pair)]
        for target in named:
            if target not in seen:
                raise spec_error(f"{row.file}: row {row.id!r}: order names unknown row {target!r}")
