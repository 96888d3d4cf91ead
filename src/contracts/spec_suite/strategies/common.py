"""Strategies every stage uses: spec-driven points, finite numbers, bad containers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from hypothesis import strategies as st

from contracts.core.value import Value


def from_domain(domain: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Values inside one spec domain {min, max, type}; floats without subnormals (an engine may flush them
    to zero: S03.rule.relu-subnormal is where they are asked for)."""
    if domain.get("type", "int") == "float":
        return st.floats(
            domain["min"], domain["max"], allow_nan=False, allow_infinity=False, allow_subnormal=False
        )
    return st.integers(int(domain["min"]), int(domain["max"]))


def symbol_values(domains: Mapping[str, Mapping[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """One value per symbol, each inside its spec domain."""
    return st.fixed_dictionaries({name: from_domain(d) for name, d in domains.items()})


finite_floats = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


non_finite_float = st.sampled_from([float("nan"), float("inf"), float("-inf")])


def value_assigned(data: float) -> Value:
    """A Value whose data was assigned after construction (a leaf refuses non-finite data)."""
    value = Value(0.0)
    value.data = data
    return value


# a Value element is checked too: its data (assigned, as an optimizer may) must be finite
non_finite_element = st.one_of(non_finite_float, non_finite_float.map(value_assigned))


# iterables that are no sequence (a set, an iterator, a generator) included: each drawn afresh
not_a_sequence_of_tokens = st.one_of(
    st.sampled_from([5, 2.0, None, "abc", b"ab"]),
    st.builds(lambda: {1, 2}),
    st.builds(lambda: iter([0, 1])),
    st.builds(lambda: (token for token in (0, 1))),
)


not_a_real = st.sampled_from([True, False, "1", None, 1j, [1.0], b"1"])


# numpy scalars of every dtype but float64, at values up to each dtype's limits: numbers.Real, yet
# arithmetic on them runs in their own dtype (a float16 overflows at 65,504, an int64 wraps), so a datum
# a guarded computation reads must not be one (S07.fail.parameter-type, S07.fail.input-data-type)
NUMPY_DTYPES = ("float16", "float32", "longdouble", "int8", "int16", "int32", "int64", "uint8", "uint64")


@st.composite
def numpy_scalar(draw: st.DrawFn, dtypes: tuple[str, ...] = NUMPY_DTYPES) -> Any:
    dtype: Any = np.dtype(draw(st.sampled_from(dtypes)))
    limits: Any = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    values = [value for value in (1, -1, 3, limits.max, limits.max // 2, limits.min) if value >= limits.min]
    return dtype.type(draw(st.sampled_from(values)))


not_a_float_datum = st.one_of(not_a_real, numpy_scalar(), st.sampled_from([np.bool_(True), np.bool_(False)]))


# not_a_real without the bools (a bool element is a row of its own, S05.fail.element-bool)
not_a_number = st.sampled_from(["1", None, 1j, [1.0], b"1"])


# numpy's integers are not Python ints: a count or budget of np.int64 would wrap past 2**63 unchecked
# every value a size check must refuse as not an exact int, tried one by one where a profile's few
# examples could miss one (the port tests of S05.fail.config-type and S07.fail.plan-type)
NOT_AN_EXACT_INT = (True, False, 1.0, "1", None, 2.5, np.int64(2), np.int32(1))
not_an_exact_int = st.sampled_from(NOT_AN_EXACT_INT)

NAMED = "named"


def naming(case: dict[str, Any], **updates: Any) -> dict[str, Any]:
    """case with updates, naming updates[NAMED] if given, else naming nothing."""
    fresh = {key: value for key, value in case.items() if key != NAMED}
    return {**fresh, **updates}
