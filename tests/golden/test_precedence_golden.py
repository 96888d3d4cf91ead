"""Check-precedence goldens: each row's worked pairs, on the seeds' own numbers."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.precedence import ENTRIES, pairs
from contracts.spec_suite.spec_rows import OWN_TYPES, example_params, reference_only, require, rows

from ..properties.test_check_precedence import assert_wins

# These tests drive this project's own types (Value, Tensor, shapes, plans): n/a on any other engine.
pytestmark = reference_only(OWN_TYPES)


@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(kind="precedence")))
def test_precedence_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """The example's two faults are an ordered pair of the row, and the earlier one's refusal wins."""
    entry = ENTRIES[spec_row.id]
    require(engine, entry.capability, spec_row.id)
    first, second = sorted(example["faults"], key=spec_row["order"].index)
    assert (first, second) in pairs(spec_row)
    assert first == example["raises"]
    assert_wins(first, entry.build(example["case"]))
