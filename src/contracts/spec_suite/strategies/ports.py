"""Port conformance: sizes and inputs for an engine's own modules."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from contracts.spec_suite.strategies.linear import input_rows, mlp_widths, token_count
from contracts.spec_suite.strategies.shapes import embedding_config


@st.composite
def tokens_with_a_bool(draw: st.DrawFn) -> dict[str, Any]:
    """Valid token ids of which one or more are bools (True would index row 1, False row 0)."""
    config = draw(embedding_config)
    tokens: list[Any] = draw(st.lists(st.integers(0, config["V"] - 1), min_size=1, max_size=config["C"]))
    for position in draw(st.sets(st.integers(0, len(tokens) - 1), min_size=1)):
        tokens[position] = draw(st.booleans())
    return {**config, "tokens": tokens}


@st.composite
def embedding_run(draw: st.DrawFn) -> dict[str, Any]:
    """A config and a valid token sequence (1 <= T <= C, 0 <= id < V)."""
    config = draw(embedding_config)
    tokens = draw(st.lists(st.integers(0, config["V"] - 1), min_size=1, max_size=config["C"]))
    return {**config, "tokens": tokens}


@st.composite
def mlp_run(draw: st.DrawFn, widths: st.SearchStrategy[list[int]] = mlp_widths) -> dict[str, Any]:
    """widths and a (T, C_in) input of an MLP forward."""
    sizes = draw(widths)
    tokens = draw(token_count)
    return {"widths": sizes, "x": np.array(draw(input_rows(tokens, sizes[0])), dtype=np.float64)}
