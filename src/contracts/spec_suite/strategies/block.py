"""Stage 08 block: x + MLP(RMSNorm(x)) plans, gains and inputs."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from contracts.spec_suite.strategies.common import naming, non_finite_float, not_a_real, not_an_exact_int
from contracts.spec_suite.strategies.linear import token_count

BLOCK_GAIN_FAULTS = ("mutate-gain", "mutate-gain-grad", "replace-gain")


GAIN_SWAPS = ("vector", "element", "list")


block_eps = st.floats(1e-8, 4.0)


bad_eps_value = st.one_of(
    st.just(0.0), st.just(-0.0), st.floats(-1e6, -1e-300), non_finite_float, st.integers(-5, 0)
)


@st.composite
def block_widths(draw: st.DrawFn, max_width: int = 4) -> list[int]:
    """C, zero to two hidden widths, C: a block whose residual connects."""
    width = draw(st.integers(1, max_width))
    hidden = draw(st.lists(st.integers(1, max_width), min_size=0, max_size=2))
    return [width, *hidden, width]


@st.composite
def block_case(draw: st.DrawFn) -> dict[str, Any]:
    """widths, use_bias, T and eps of a small block."""
    return {
        "widths": draw(block_widths()),
        "use_bias": draw(st.booleans()),
        "tokens": draw(token_count),
        "eps": draw(block_eps),
    }


def bad_norm_config() -> st.SearchStrategy[dict[str, Any]]:
    """One RMSNormPlan argument of the right type and a refused value."""
    return st.one_of(
        st.fixed_dictionaries({"width": st.integers(-5, 0)}),
        st.fixed_dictionaries({"eps": bad_eps_value}),
        st.fixed_dictionaries({"gain_init": non_finite_float}),
        st.fixed_dictionaries({"name": st.sampled_from(["", " ", "\t"])}),
    )


def bad_norm_type() -> st.SearchStrategy[dict[str, Any]]:
    """One RMSNormPlan argument of a refused type (bool included)."""
    return st.one_of(
        st.fixed_dictionaries({"width": not_an_exact_int}),
        st.fixed_dictionaries({"eps": not_a_real}),
        st.fixed_dictionaries({"gain_init": not_a_real}),
        st.fixed_dictionaries({"name": st.sampled_from([7, None, 1.5, b"n"])}),
    )


@st.composite
def norm_width_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """An MLP over widths beside a norm of another width."""
    widths = draw(block_widths())
    return {"widths": widths, "norm_width": draw(st.integers(1, 5).filter(lambda w: w != widths[0]))}


@st.composite
def residual_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """An MLP whose output width is not its input width (the residual cannot add them)."""
    widths = draw(st.lists(st.integers(1, 4), min_size=2, max_size=4).filter(lambda w: w[-1] != w[0]))
    return {"widths": widths, "use_bias": draw(st.booleans()), "eps": draw(block_eps)}


@st.composite
def over_block_parameters(draw: st.DrawFn) -> dict[str, Any]:
    return {**draw(block_case()), "shortfall": draw(st.integers(1, 100))}


@st.composite
def over_block_graph(draw: st.DrawFn) -> dict[str, Any]:
    via = draw(st.sampled_from(["forward", "plan"]))
    return {**draw(block_case()), "shortfall": draw(st.integers(1, 300)), "via": via}


@st.composite
def gain_swap(draw: st.DrawFn) -> dict[str, Any]:
    return {**draw(block_case()), "mode": draw(st.sampled_from(GAIN_SWAPS))}


@st.composite
def broken_block_executor(draw: st.DrawFn) -> dict[str, Any]:
    return {**draw(block_case()), "executor": draw(st.sampled_from(BLOCK_GAIN_FAULTS))}


@st.composite
def precedence_block_plan(draw: st.DrawFn) -> dict[str, Any]:
    """A valid BlockPlan.rmsnorm_mlp call: widths and eps, no budget."""
    return {"widths": draw(block_widths()), "eps": draw(block_eps)}


@st.composite
def inject_norm_eps(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    return naming(case, eps=draw(bad_eps_value))


@st.composite
def inject_residual_width(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    widths = list(case["widths"])
    widths[-1] = draw(st.integers(1, 5).filter(lambda w: w != widths[0]))
    return naming(case, widths=widths)


@st.composite
def precedence_block_forward(draw: st.DrawFn) -> dict[str, Any]:
    """A valid Block.forward call: widths and T, no budget, no replaced gain."""
    return {"widths": draw(block_widths()), "tokens": draw(token_count), "use_bias": False}


@st.composite
def inject_gain_swap(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    return naming(case, replace=draw(st.sampled_from(GAIN_SWAPS)))


@st.composite
def inject_block_layer_swap(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """One of the block's MLP layers gets a fresh weight Matrix of equal data between forwards."""
    return naming(case, mlp_replace=draw(st.integers(0, len(case["widths"]) - 2)))
