"""Strategies for the guarded forward's value bound and input data, and for explicit init roles.

Rows: S07.rule.forward-bound, S07.fail.forward-overflow, S07.fail.input-non-finite,
S07.fail.input-data-type, S07.fail.init-role; the precedence injectors put each fault into a valid
call of S07.order.model-plan, S07.order.forward and S08.order.block-forward.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from contracts.spec_suite import strategies as s

VIAS = ("mlp", "linear", "block")
# Magnitudes whose square (or product with another of them) overflows float64: 1e155² = 1e310.
OVERFLOWING = st.floats(1e155, 1e300)
# eps whose power-step derivative ½·eps^(-3/2) overflows at a zero row: (1e-210)^(-3/2) = 1e315.
TINY_EPS = st.floats(5e-324, 1e-210)
small = st.floats(-4.0, 4.0, allow_nan=False)
sign = st.sampled_from([1.0, -1.0])


@st.composite
def init_role_case(draw: st.DrawFn) -> dict[str, Any]:
    """Explicit layers (>= 2) whose roles fit, except one or more layers after a ReLU given standard; the
    first layer's role is drawn (the plan does not see what feeds it)."""
    widths = draw(s.deep_widths)
    depth = len(widths) - 1
    roles = [draw(st.sampled_from(["standard", "relu"])), *["relu"] * (depth - 1)]
    for index in draw(st.lists(st.integers(1, depth - 1), min_size=1, max_size=2)):
        roles[index] = "standard"
    return {"widths": widths, "roles": roles}


def module_widths(draw: st.DrawFn, via: str) -> list[int]:
    return draw(s.block_widths()) if via == "block" else draw(s.mlp_widths)


@st.composite
def input_data_case(draw: st.DrawFn, bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    """An MLP, a Linear or a Block, and one input element whose data is assigned `bad`."""
    via = draw(st.sampled_from(VIAS))
    widths = module_widths(draw, via)
    tokens = draw(s.token_count)
    at = [draw(st.integers(0, tokens - 1)), draw(st.integers(0, widths[0] - 1))]
    return {
        "via": via,
        "widths": widths,
        "use_bias": draw(st.booleans()),
        "tokens": tokens,
        "at": at,
        "data": draw(bad),
    }


def input_rows(draw: st.DrawFn, tokens: int, width: int) -> list[list[float]]:
    return draw(st.lists(st.lists(small, min_size=width, max_size=width), min_size=tokens, max_size=tokens))


@st.composite
def overflow_case(draw: st.DrawFn) -> dict[str, Any]:
    """A forward whose bound overflows: an overflowing input element times an overflowing fc1 weight
    (MLP or Linear), an input element whose square overflows (Block), or a zero row under an eps whose
    power derivative overflows (Block)."""
    kind = draw(st.sampled_from(["product", "squares", "derivative"]))
    via = draw(st.sampled_from(["mlp", "linear"])) if kind == "product" else "block"
    widths = module_widths(draw, via)
    tokens = draw(s.token_count)
    x = input_rows(draw, tokens, widths[0])
    t, i = draw(st.integers(0, tokens - 1)), draw(st.integers(0, widths[0] - 1))
    case: dict[str, Any] = {"via": via, "widths": widths, "use_bias": draw(st.booleans()), "tokens": tokens}
    if kind == "derivative":
        x[t] = [0.0] * widths[0]
        return {**case, "x": x, "eps": draw(TINY_EPS)}
    x[t][i] = draw(sign) * draw(OVERFLOWING)
    if kind == "squares":
        return {**case, "x": x}
    fc1 = [[0.5] * widths[0] for _ in range(widths[1])]
    fc1[draw(st.integers(0, widths[1] - 1))][draw(st.integers(0, widths[0] - 1))] = draw(sign) * draw(
        OVERFLOWING
    )
    return {**case, "x": x, "weights": {"fc1": fc1}}


# ---------------------------------------------------------------- precedence injectors


@st.composite
def inject_role(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """A layer after a ReLU (index >= 1) given role standard."""
    depth = len(case["layers"])
    roles = list(case.get("roles", ["standard"] + ["relu"] * (depth - 1)))
    roles[draw(st.integers(1, depth - 1))] = "standard"
    return s.naming(case, roles=roles)


def inject_huge(case: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Every input element 1e200 (and, for an MLP, every fc1 weight): a product or a square overflows."""
    return st.just(s.naming(case, huge=True))


@st.composite
def inject_input_data(draw: st.DrawFn, case: dict[str, Any], kind: str) -> dict[str, Any]:
    """One input element's data assigned a non-finite value, or a non-real or a numpy scalar other than
    float64, after the Matrix was built."""
    bad = draw(
        st.one_of(s.non_finite_float, s.int_beyond_float_range)
        if kind == "non-finite"
        else s.not_a_float_datum
    )
    at = [draw(st.integers(0, case["tokens"] - 1)), draw(st.integers(0, case["widths"][0] - 1))]
    return s.naming(case, input_data=[*at, bad], named=bad)
