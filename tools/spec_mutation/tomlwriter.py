"""Write a spec document back as TOML: tomllib only reads, and a mutant must be a real spec file.

Only what spec files hold: tables of scalars, arrays and inline tables, with `[meta]` and `[[rows]]`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def key(name: str) -> str:
    return name if BARE_KEY.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def value(item: Any) -> str:
    """One TOML value on one line (inline tables for mappings)."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        return float_text(item)
    if isinstance(item, str):
        return json.dumps(item, ensure_ascii=False)
    if isinstance(item, Mapping):
        return "{ " + ", ".join(f"{key(k)} = {value(v)}" for k, v in item.items()) + " }" if item else "{}"
    if isinstance(item, list | tuple):
        return "[" + ", ".join(value(v) for v in item) + "]"
    raise TypeError(f"cannot write {type(item).__name__} {item!r} as TOML")


def float_text(number: float) -> str:
    # Python's float repr is TOML's float syntax: always a '.' or an exponent, and inf, -inf, nan as is
    return repr(number)


def table(entries: Mapping[str, Any]) -> list[str]:
    return [f"{key(k)} = {value(v)}" for k, v in entries.items()]


def dumps(document: Mapping[str, Any]) -> str:
    """The document as TOML: top-level scalars, then one [table] per mapping, [[name]] per array of tables."""
    lines: list[str] = []
    plain = {k: v for k, v in document.items() if not is_table(v) and not is_table_array(v)}
    lines.extend(table(plain))
    for name, item in document.items():
        if is_table(item):
            lines.extend(["", f"[{key(name)}]", *table(item)])
        elif is_table_array(item):
            for entry in item:
                lines.extend(["", f"[[{key(name)}]]", *table(entry)])
    return "\n".join(lines).lstrip("\n") + "\n"


def is_table(item: Any) -> bool:
    return isinstance(item, Mapping)


def is_table_array(item: Any) -> bool:
    return isinstance(item, list) and bool(item) and all(isinstance(entry, Mapping) for entry in item)
