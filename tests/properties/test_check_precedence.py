"""Check precedence: when two faults co-occur in one call, the check the spec orders first wins.

For every precedence row, hypothesis draws a valid call; for every pair (earlier, later) of its `order`
that can co-occur, it injects the later fault (which alone must raise its own row: the pair is real),
then the earlier fault; the earlier row's exception, message and named value must win, with every
probe of that row at zero, no tensor node created and no tensor gradient written.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.precedence import ENTRIES, Built, Case, pairs
from contracts.spec_suite.probes import assert_refused
from contracts.spec_suite.spec_rows import OWN_TYPES, params, reference_only, require, row, rows
from contracts.tensor import reset_node_counter

# These tests drive this project's own types (Value, Tensor, shapes, plans): n/a on any other engine.
pytestmark = reference_only(OWN_TYPES)

PRECEDENCE = rows(kind="precedence")


def assert_wins(row_id: str, built: Built) -> None:
    """The row's refusal, with zero side effects, tensor nodes and tensor gradients included."""
    counter = reset_node_counter()
    assert_refused(row(row_id), built.attempt)
    assert 0 == counter.nodes, f"{row_id}: {counter.nodes} tensor node(s) created before the raise"
    assert [None] * len(built.leaves) == [leaf.grad for leaf in built.leaves]


# Every example walks the row's whole pair table (every co-occurring pair, each fault alone first), so
# no pair is left to sampling; the examples only vary the valid call and the injected values, whose
# variety each failure row's own property test covers at the profile's count. 10 calls per pair find a
# check run out of order as surely as 50 (the order of checks does not depend on the values) at 1/5 the
# cost: this test was a tenth of the property suite.
@settings(max_examples=s.examples(10, quick=5))
@pytest.mark.parametrize("spec_row", params(PRECEDENCE))
@given(data=st.data())
def test_earlier_check_wins(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Every co-occurring pair of the row's faults, in one drawn call: the earlier row wins, nothing built."""
    entry = ENTRIES[spec_row.id]
    require(engine, entry.capability, spec_row.id)
    base = data.draw(entry.base)
    alone: dict[str, Case] = {}
    for first, second in pairs(spec_row):
        if second not in alone:
            alone[second] = data.draw(entry.faults[second](base))
            assert_wins(second, entry.build(alone[second]))
        both = data.draw(entry.faults[first](alone[second]))
        assert_wins(first, entry.build(both))


def test_every_ordered_fault_has_an_injector() -> None:
    """The tests inject exactly the faults each row orders, and `unordered` pairs come from `order`."""
    assert sorted(r.id for r in PRECEDENCE) == sorted(ENTRIES)
    for spec_row in PRECEDENCE:
        assert sorted(spec_row["order"]) == sorted(ENTRIES[spec_row.id].faults)
        for pair in spec_row.get("unordered", ()):
            assert set(pair) <= set(spec_row["order"]), f"{spec_row.id}: {pair}"
        assert pairs(spec_row), f"{spec_row.id}: no pair of faults is tested"
