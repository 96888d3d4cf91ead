"""The precedence kind: its schema fields and the loader's reference check."""

from __future__ import annotations

from pathlib import Path

import pytest

from contracts.spec import load_rows
from contracts.spec.loader import SpecError
from tests.common.specs import formula, write_specs

FAILURE = """
[[rows]]
id = "X99.fail.{name}"
kind = "failure"
title = "{name}"
origin = "decision"
level = "refusals"
category = "refusal"
blocked_at = "here"
exception = "ValueError"
message = "{name}"
late_effect = "none"
probes = []
"""

PRECEDENCE = """
[[rows]]
id = "X99.order.op"
kind = "precedence"
title = "order"
origin = "decision"
level = "contract"
category = "order"
entry = "op"
order = {order}
unordered = {unordered}
statement = "a before b"
examples = [{{ faults = ["X99.fail.a", "X99.fail.b"], case = {{}}, raises = "X99.fail.a" }}]
"""


def specs(tmp_path: Path, order: str, unordered: str = "[]") -> Path:
    rows = formula() + FAILURE.format(name="a") + FAILURE.format(name="b")
    return write_specs(tmp_path, {"a.toml": rows + PRECEDENCE.format(order=order, unordered=unordered)})


def test_a_precedence_row_loads_with_its_order(tmp_path: Path) -> None:
    """A precedence row naming existing failure rows loads, its order as written."""
    loaded = {r.id: r for r in load_rows(specs(tmp_path, '["X99.fail.a", "X99.fail.b"]'))}
    assert ["X99.fail.a", "X99.fail.b"] == loaded["X99.order.op"]["order"]


@pytest.mark.parametrize(
    ("order", "unordered"),
    [
        ('["X99.fail.a", "X99.fail.missing"]', "[]"),
        ('["X99.fail.a", "X99.fail.b"]', '[["X99.fail.a", "X99.fail.missing"]]'),
    ],
)
def test_order_naming_an_unknown_row_is_rejected(tmp_path: Path, order: str, unordered: str) -> None:
    """Every id in order and in unordered must name a row that exists."""
    with pytest.raises(
        SpecError, match=r"^a\.toml: row 'X99\.order\.op': order names unknown row 'X99\.fail\.missing'$"
    ):
        load_rows(specs(tmp_path, order, unordered))


@pytest.mark.parametrize(
    ("order", "problem"),
    [
        ('["X99.fail.a"]', "is too short"),
        ('["X99.fail.a", "X99.fail.a"]', "has non-unique elements"),
        ('["X99.fail.a", "not an id"]', "does not match"),
    ],
)
def test_order_schema(tmp_path: Path, order: str, problem: str) -> None:
    """order holds >= 2 distinct row ids (the schema)."""
    with pytest.raises(SpecError, match=rf"row 'X99\.order\.op': rows/3/order(/1)?: .*{problem}"):
        load_rows(specs(tmp_path, order))
