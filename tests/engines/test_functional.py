"""The functional engines' (JAX, autograd) shared plumbing, without either engine: operands rebuilt
from the differentiated values, and one gradient per input read back from the cotangents."""

from __future__ import annotations

from contracts.engines.functional import merge, spread


def test_merge_takes_the_differentiated_values_where_flagged_and_the_closed_over_ones_elsewhere() -> None:
    """Flags (True, False, True) over primals (a, b, c) with differentiated (x, z) give (x, b, z)."""
    assert ["x", "b", "z"] == merge(["a", "b", "c"], [True, False, True], ["x", "z"])


def test_spread_gives_each_flagged_input_its_cotangent_in_order_and_none_elsewhere() -> None:
    """Cotangents (g1, g2) over flags (False, True, True) read (None, g1, g2); before any backward
    every input reads None."""
    assert (None, "g1", "g2") == spread(("g1", "g2"), [False, True, True])  # type: ignore[arg-type]
    assert (None, None) == spread(None, [True, True])
