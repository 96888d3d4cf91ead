"""Stage 05 on the engine under test's own embedding module (port conformance).

The adapter builds token (V, D) and position (C, D) tables with the engine's module types and
reports parameters, values and exceptions as plain data; the spec rows give every expected number
and exception family.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.port import POSITION_WEIGHT, TOKEN_WEIGHT, build, named_state
from contracts.spec_suite.spec_rows import assert_refused_as, params, require, row, rows

# which reported tables each parameter row counts
COUNTED = {
    "S05.params.token": (TOKEN_WEIGHT,),
    "S05.params.position": (POSITION_WEIGHT,),
    "S05.params.embedding": (TOKEN_WEIGHT, POSITION_WEIGHT),
}


def embedding(engine: Engine, case: dict[str, Any]) -> Any:
    return build(engine, lambda: engine.module_embedding(case["V"], case["C"], case["D"]))


@pytest.mark.parametrize("spec_row", params(rows(prefix="S05.params.")))
@given(data=st.data())
def test_port_embedding_parameter_count(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """For random V, C, D the engine's tables hold the spec's parameter count, in two named tables."""
    require(engine, "module.embedding", spec_row.id)
    symbols = data.draw(s.symbol_values(spec_row["symbols"]))
    counts = {info.name: info.count for info in engine.module_parameters(embedding(engine, symbols))}
    assert [TOKEN_WEIGHT, POSITION_WEIGHT] == list(counts)
    assert evaluate(spec_row["expr"], symbols) == sum(counts[name] for name in COUNTED[spec_row.id])


@pytest.mark.spec("S05.rule.embedding-shapes")
@given(case=s.embedding_run())
def test_port_embedding_shapes_and_rows(engine: Engine, case: dict[str, Any]) -> None:
    """Tables (V, D) and (C, D); output (T, D) with row t = token row id_t + position row t."""
    require(engine, "module.embedding", "S05.rule.embedding-shapes")
    module = embedding(engine, case)
    v, c, d, tokens = case["V"], case["C"], case["D"], case["tokens"]
    shapes = {info.name: info.shape for info in engine.module_parameters(module)}
    assert {TOKEN_WEIGHT: (v, d), POSITION_WEIGHT: (c, d)} == shapes
    state = named_state(engine, module, "embedding")
    output = engine.module_forward(module, tokens)
    assert (len(tokens), d) == output.shape
    expected = state[TOKEN_WEIGHT][tokens] + state[POSITION_WEIGHT][: len(tokens)]
    np.testing.assert_allclose(output, expected, rtol=1e-12, atol=0)


STRATEGY = {
    "S05.fail.token-id": s.tokens_with_bad_id(),
    "S05.fail.token-type": s.tokens_with_a_bool(),
    "S05.fail.sequence-length": s.tokens_too_long(),
    "S05.fail.sequence-empty": s.tokens_empty(),
}


@pytest.mark.parametrize("spec_row", params(row(row_id) for row_id in STRATEGY))
@given(data=st.data())
def test_port_embedding_refuses_bad_tokens(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """An id outside [0, V) (negative too), a bool id, T > C or T = 0 is refused with the spec's
    exception family, through the adapter's declared mapping of the engine's exception types."""
    require(engine, "module.embedding", spec_row.id)
    case = data.draw(STRATEGY[spec_row.id])
    module = embedding(engine, case)
    assert_refused_as(engine, spec_row, lambda: engine.module_forward(module, case["tokens"]))


@pytest.mark.spec("S05.cost.embedding-forward")
@given(case=s.embedding_run())
def test_port_embedding_forward_graph_nodes(engine: Engine, case: dict[str, Any]) -> None:
    """The nodes one forward creates, counted in the engine's graph, equal the spec's T·D."""
    require(engine, "module.graph-count", "S05.cost.embedding-forward")
    require(engine, "module.embedding", "S05.cost.embedding-forward")
    spec_row = row("S05.cost.embedding-forward")
    module = embedding(engine, case)
    expected = evaluate(spec_row["expr"], {**case, "T": len(case["tokens"])})
    assert expected == engine.module_graph_nodes(module, case["tokens"])
