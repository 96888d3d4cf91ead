"""Load and validate every spec file: one loader, one schema, errors naming file and row."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema

from contracts.spec.expr import ExpressionError, parse_expression
from contracts.spec.functions import KNOWN as KNOWN_FUNCTIONS


class SpecError(ValueError):
    """A spec file is malformed: the message names the file and the row."""


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


def spec_dir() -> Path:
    """CONTRACTS_SPECS if set, else the repository's specs/ beside src/."""
    configured = os.environ.get("CONTRACTS_SPECS")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3] / "specs"


def schema(directory: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((directory / "schema.json").read_bytes())
    return loaded


def load_spec_file(path: Path, file_schema: dict[str, Any]) -> list[SpecRow]:
    name = path.name
    try:
        document = tomllib.loads(path.read_bytes().decode())
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{name}: not valid TOML ({error})") from None
    errors = sorted(jsonschema.Draft202012Validator(file_schema).iter_errors(document), key=str)
    if errors:
        first = errors[0]
        where = "/".join(str(part) for part in first.absolute_path)
        row_id = row_id_at(document, list(first.absolute_path))
        raise SpecError(f"{name}: row {row_id}: {where}: {first.message}")
    meta = document["meta"]
    functions = frozenset(meta.get("functions", ()))
    unknown = functions - KNOWN_FUNCTIONS
    if unknown:
        raise SpecError(f"{name}: meta.functions names unknown functions {sorted(unknown)}")
    rows = [SpecRow(row, meta["stage"], name, functions) for row in document["rows"]]
    for row in rows:
        check_expressions(row)
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
            raise SpecError(f"{row.file}: row {row.id!r}: {field}: {error}") from None


def load_rows(directory: Path | None = None) -> list[SpecRow]:
    """Every row of every specs/*.toml, validated, with ids unique across files."""
    base = directory or spec_dir()
    file_schema = schema(base)
    rows: list[SpecRow] = []
    for path in sorted(base.glob("*.toml")):
        rows.extend(load_spec_file(path, file_schema))
    check_references(rows)
    return rows


def check_references(rows: list[SpecRow]) -> None:
    seen: dict[str, str] = {}
    for row in rows:
        if row.id in seen:
            raise SpecError(f"{row.file}: row {row.id!r}: id already used in {seen[row.id]}")
        seen[row.id] = row.file
    for row in rows:
        for target in row.get("enforced_by", ()):
            if target not in seen:
                raise SpecError(f"{row.file}: row {row.id!r}: enforced_by names unknown row {target!r}")
        named = [*row.get("order", ()), *(target for pair in row.get("unordered", ()) for target in pair)]
        for target in named:
            if target not in seen:
                raise SpecError(f"{row.file}: row {row.id!r}: order names unknown row {target!r}")
