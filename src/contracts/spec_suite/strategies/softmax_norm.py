"""Stages 06 and 08 on tensors: the softmax family, reductions and rms_norm."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from contracts.spec_suite.strategies.common import from_domain
from contracts.spec_suite.strategies.tensor import float_arrays

SOFTMAX_SIDE = 5  # classes per slice <= 5 and batch <= 4 keep the mpmath references cheap


@st.composite
def axis_case(
    draw: st.DrawFn,
    elements: st.SearchStrategy[float] | None = None,
    axes: st.SearchStrategy[int] | None = None,
) -> dict[str, Any]:
    """x of 1..3 dims with non-empty axes, an axis in [-ndim, ndim) (or drawn from axes first, x then
    getting as many dims as the axis needs), keepdims, upstream of the kept shape."""
    if axes is None:
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=SOFTMAX_SIDE))
        axis = draw(st.integers(-len(shape), len(shape) - 1))
    else:
        axis = draw(axes)
        dims = draw(st.integers(axis + 1 if axis >= 0 else -axis, max(3, axis + 1, -axis)))
        shape = draw(
            hnp.array_shapes(min_dims=dims, max_dims=dims, max_side=SOFTMAX_SIDE if dims <= 3 else 2)
        )
    x = draw(float_arrays(shape, elements if elements is not None else st.floats(-4, 4)))
    kept = tuple(1 if i == axis % len(shape) else size for i, size in enumerate(shape))
    upstream = draw(float_arrays(kept, st.floats(-2, 2)))
    return {"x": x, "axis": axis, "keepdims": draw(st.booleans()), "kept": kept, "upstream": upstream}


def distinct_max(case: dict[str, Any]) -> bool:
    """The max along the axis is unique and at least 1/4 above the rest (no tie within a step)."""
    x = np.moveaxis(case["x"], case["axis"], -1)
    if x.shape[-1] == 1:
        return True
    top = np.sort(x, axis=-1)
    return bool(np.all(top[..., -1] - top[..., -2] >= 0.25))


@st.composite
def ce_case(
    draw: st.DrawFn,
    elements: st.SearchStrategy[float] | None = None,
    classes_of: st.SearchStrategy[int] | None = None,
) -> dict[str, Any]:
    """logits (batch..., classes) with 0..2 batch axes and integer targets of the batch shape (or the
    targets drawn from classes_of first, and then more classes than the largest of them)."""
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=2))
    if classes_of is None:
        classes = draw(st.integers(1, SOFTMAX_SIDE))
        targets = draw(hnp.arrays(np.int64, batch, elements=st.integers(0, classes - 1)))
    else:
        targets = draw(hnp.arrays(np.int64, batch, elements=classes_of))
        least = int(targets.max(initial=0)) + 1
        classes = draw(st.integers(least, max(least, SOFTMAX_SIDE)))
    x = draw(float_arrays((*batch, classes), elements if elements is not None else st.floats(-4, 4)))
    return {"x": x, "targets": targets}


@st.composite
def wide_logits(draw: st.DrawFn, axis_last: bool = True) -> dict[str, Any]:
    """Logits for the error bounds: |x| <= 1e4, spreads from 1e-3 to 1e4, some elements tied at the max,
    in a (batch <= 3, classes <= 5) array, and an upstream |g| <= 2."""
    batch = draw(st.integers(1, 3))
    classes = draw(st.integers(1, SOFTMAX_SIDE))
    center = draw(st.floats(-1e4, 1e4))
    spread = draw(st.sampled_from([1e-3, 0.5, 1.0, 10.0, 40.0, 100.0, 700.0, 800.0, 1e4]))
    offsets = draw(float_arrays((batch, classes), st.floats(-1, 1)))
    x = np.clip(center + offsets * spread, -1e4, 1e4)
    upstream = draw(float_arrays((batch, classes), st.floats(-2, 2)))
    targets = draw(hnp.arrays(np.int64, (batch,), elements=st.integers(0, classes - 1)))
    return {"x": x, "upstream": upstream, "targets": targets}


@st.composite
def rms_case(
    draw: st.DrawFn,
    scales: tuple[int, int] = (-1, 1),
    eps: st.SearchStrategy[float] | None = None,
    elements: st.SearchStrategy[float] | None = None,
    gains: st.SearchStrategy[float] | None = None,
) -> dict[str, Any]:
    """x (batch <= 3 rows of n <= 5) scaled by 10^k, k in scales, gain |w| <= 2, eps, upstream |g| <= 2."""
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    n = draw(st.integers(1, SOFTMAX_SIDE))
    scale = 10.0 ** draw(st.one_of(st.sampled_from(scales), st.integers(*scales)))  # the ends, then any
    x = draw(float_arrays((*batch, n), elements if elements is not None else st.floats(-4, 4))) * scale
    gain = draw(float_arrays((n,), gains if gains is not None else st.floats(-2, 2)))
    upstream = draw(float_arrays((*batch, n), st.floats(-2, 2)))
    value = draw(eps if eps is not None else st.floats(1e-3, 1.0))
    return {"x": x, "gain": gain, "eps": value, "upstream": upstream}


log_eps = st.integers(-12, 0).map(lambda k: 10.0**k)


# every finite eps > 0 the spec accepts, down to the subnormals (2^-1074 = 5e-324 included)
any_positive_eps = st.one_of(log_eps, st.floats(5e-324, 1e-300), st.just(5e-324), st.floats(1.0, 1e300))
# every eps from 1e-200 up, where an unscaled rms_norm backward's eps^(-3/2) is still a normal float64
normal_range_eps = st.one_of(log_eps, st.floats(1e-200, 1e-12), st.just(1e-200), st.floats(1.0, 1e300))


AXIS_OPS = ("sum", "max", "logsumexp", "softmax", "log_softmax")


@st.composite
def axis_out_of_range(draw: st.DrawFn) -> dict[str, Any]:
    """An axis op with an axis outside [-ndim, ndim), or cross_entropy / rms_norm of a 0-d input. Sides of
    0 are drawn too: an axis that does not exist is out of range, never 'empty' (an axis taken modulo
    ndim would name an empty side that is not the one asked for)."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    ndim = len(shape)
    which = draw(st.sampled_from([*AXIS_OPS, "cross_entropy", "rms_norm"]))
    if which == "cross_entropy":
        return {"op": which, "inputs": [np.ones(())], "params": {"targets": np.asarray(0)}}
    if which == "rms_norm":
        return {"op": which, "inputs": [np.ones(()), np.ones(1)], "params": {"eps": 1e-6}}
    axis = draw(st.one_of(st.integers(ndim, ndim + 3), st.integers(-ndim - 3, -ndim - 1)))
    return {"op": which, "inputs": [np.ones(shape)], "params": {"axis": axis}}


@st.composite
def axis_of_wrong_type(draw: st.DrawFn) -> dict[str, Any]:
    axis = draw(st.sampled_from([1.0, 0.0, True, False, "0", None]))
    return {"op": draw(st.sampled_from(AXIS_OPS)), "inputs": [np.ones((2, 2))], "params": {"axis": axis}}


@st.composite
def empty_axis(draw: st.DrawFn) -> dict[str, Any]:
    """An op over an axis of size 0 (cross_entropy: empty classes or an empty batch axis)."""
    shape = list(draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3)))
    axis = draw(st.integers(0, len(shape) - 1))
    which = draw(st.sampled_from([*AXIS_OPS, "cross_entropy", "rms_norm"]))
    if which == "rms_norm":
        shape[-1] = 0
        return {"op": which, "inputs": [np.ones(shape), np.ones(0)], "params": {"eps": 1e-6}}
    shape[axis] = 0
    if which == "cross_entropy":
        targets = np.zeros(shape[:-1], dtype=np.int64)
        return {"op": which, "inputs": [np.ones(shape)], "params": {"targets": targets}}
    negative = draw(st.booleans())  # the same axis counted from the end
    return {
        "op": which,
        "inputs": [np.ones(shape)],
        "params": {"axis": axis - len(shape) if negative else axis},
    }


@st.composite
def bad_targets(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    """cross_entropy with targets of a float/bool dtype, out of [0, classes), or of the wrong shape."""
    case = draw(ce_case())
    batch = case["x"].shape[:-1]
    classes = case["x"].shape[-1]
    if kind == "dtype":
        dtype = draw(st.sampled_from([np.float64, np.float32, np.bool_]))
        targets = case["targets"].astype(dtype)
    elif kind == "range":
        targets = case["targets"].copy()
        bad = draw(st.one_of(st.integers(classes, classes + 5), st.integers(-5, -1)))
        targets.reshape(-1)[draw(st.integers(0, targets.size - 1))] = bad  # a view of the copy
    else:
        other = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3).filter(lambda s: s != batch))
        targets = np.zeros(other, dtype=np.int64)
    return {"op": "cross_entropy", "inputs": [case["x"]], "params": {"targets": targets}}


@st.composite
def bad_eps(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    if kind == "value":
        eps: Any = draw(
            st.one_of(
                st.floats(max_value=0.0), st.sampled_from([float("nan"), float("inf"), -float("inf"), 0, -1])
            )
        )
    else:
        eps = draw(st.sampled_from([True, False, "1e-6", None, [1e-6], np.float32(1e-6)]))
    n = draw(st.integers(1, 4))
    return {"op": "rms_norm", "inputs": [np.ones((2, n)), np.ones(n)], "params": {"eps": eps}}


@st.composite
def bad_gain(draw: st.DrawFn) -> dict[str, Any]:
    x_shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
    gain = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=4).filter(lambda s: s != x_shape[-1:]))
    return {"op": "rms_norm", "inputs": [np.ones(x_shape), np.ones(gain)], "params": {"eps": 1e-6}}


def row_domain(spec_row: Mapping[str, Any], name: str) -> st.SearchStrategy[Any]:
    """The values the row's `domain` (an input) or `constants` (a parameter) gives name: the tests draw
    from the spec's ranges, so a range the implementation does not honour fails them."""
    return from_domain({**spec_row["domain"], **spec_row.get("constants", {})}[name])


def rms_row_case(spec_row: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """An rms_norm case whose x, gain and eps come from the gradient row's domains (no extra scale)."""
    return rms_case(
        scales=(0, 0),
        eps=row_domain(spec_row, "eps"),
        elements=row_domain(spec_row, "x"),
        gains=row_domain(spec_row, "w"),
    )
