"""Strings an engine or a file supplies, made safe to print before any report holds them.

An adapter runs in the suite's process and names itself; a saved report is any file. Their strings
(an engine's name and version, an exception's message, a row id read from a report) reach a terminal,
a markdown table and XML. A control character there could forge a line (a newline and a verdict of its
own), recolour the terminal (an escape sequence) or make the XML invalid. So every control character,
and every Unicode line separator or bidirectional override, is written as its escape (`\\n`,
`\\x1b`, `\\u202e`): the text stays readable and can be matched, but says only what it says. A
multi-line text (a failure's message, a falsifying example) keeps its line breaks; each line is
escaped alone, so a format that prefixes every line (the table's `| `) keeps every line marked.
"""

from __future__ import annotations

import re
from typing import Any

UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped(match: re.Match[str]) -> str:
    character = match.group()
    code = ord(character)
    return NAMED.get(character) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def one_line(text: str) -> str:
    """text with every control character (line breaks too) written as its escape."""
    return UNPRINTABLE.sub(escaped, text)


def lines(text: str) -> str:
    """A multi-line text: its line breaks kept, every other control character escaped."""
    return "\n".join(one_line(line) for line in text.split("\n"))


def cleaned(value: Any, multiline: bool = False) -> Any:
    """value with every string in it made printable (one_line, or lines when multiline), through
    lists and dicts (their keys too); anything else unchanged."""
    if isinstance(value, str):
        return lines(value) if multiline else one_line(value)
    if isinstance(value, list):
        return [cleaned(item, multiline) for item in value]
    if isinstance(value, dict):
        return {cleaned(key): cleaned(item, multiline) for key, item in value.items()}
    return value
