"""Stage 03: scalar autodiff programs and values."""

from __future__ import annotations

from hypothesis import strategies as st

from contracts.spec_suite.strategies.common import finite_floats

positive_floats = st.floats(1e-3, 1e3)


small_floats = st.floats(-100, 100, allow_nan=False)


log_outside_domain = st.one_of(st.just(0.0), st.just(-0.0), st.floats(-1e6, -1e-300)).map(lambda x: {"x": x})


exp_overflowing = st.floats(709.8, 1e6).map(lambda x: {"x": x})


division_by_zero = st.fixed_dictionaries(
    {
        "a": finite_floats,
        "b": st.sampled_from([0.0, -0.0]),
        "form": st.sampled_from(["value", "constant", "reflected"]),
    }
)


pow_outside_domain = st.one_of(
    # a negative base with a non-integer exponent has no real power
    st.fixed_dictionaries({"x": st.floats(-1e3, -1e-3), "k": st.floats(-3, 3).filter(lambda k: k != int(k))}),
    # zero to a negative power (or its derivative) is infinite
    st.fixed_dictionaries({"x": st.just(0.0), "k": st.floats(-3, 0.99).filter(lambda k: k != 0)}),
)


pow_bad_exponent = st.fixed_dictionaries(
    {"x": finite_floats, "k": st.sampled_from([True, False, "2", None, "Value"])}
)
