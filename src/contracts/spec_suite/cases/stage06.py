"""Stage 06/08 oracles: exact references in mpmath (80 significant digits) at the float64 inputs, the
error bounds of S06.rule.forward-error / S06.rule.grad-error / S08.rule.stability, and the naive
compositions the bounds must reject. Nothing here calls contracts.tensor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
EPS64 = float(np.finfo(np.float64).eps)  # 2^-52
TINY = float(np.finfo(np.float64).tiny)  # 2^-1022, the smallest normal: the underflow allowance
DPS = 80


def mp_rows(x: Array, axis: int) -> tuple[list[list[Any]], Callable[[list[list[float]]], Array]]:
    """The 1-D slices of x along axis as mpf lists, and a function putting per-slice results back."""
    moved = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])

    def back(results: list[list[float]]) -> Array:
        out = np.asarray(results, dtype=np.float64).reshape((*moved.shape[:-1], -1))
        return np.moveaxis(out, -1, axis)

    return [[mpmath.mpf(float(v)) for v in row] for row in flat], back


def exact_softmax_row(row: list[Any]) -> tuple[list[Any], Any]:
    """(softmax, logsumexp) of one slice to DPS digits. log Σ e^{z} = log1p(Σ_{j ≠ k} e^{z_j}) for one
    k with z_k = 0 is exact math; it keeps log Σ's relative accuracy when it is far below 10^-DPS."""
    with mpmath.workdps(DPS):
        m = max(row)
        z = [v - m for v in row]  # exact: float64 operands, 80 digits
        k = z.index(0)
        shift = mpmath.log1p(mpmath.fsum(mpmath.exp(v) for j, v in enumerate(z) if j != k))
        return [mpmath.exp(v - shift) for v in z], m + shift


def exact_shift(row: list[Any]) -> Any:
    with mpmath.workdps(DPS):
        m = max(row)
        z = [v - m for v in row]
        k = z.index(0)
        return mpmath.log1p(mpmath.fsum(mpmath.exp(v) for j, v in enumerate(z) if j != k))


# ---------------------------------------------------------------- exact values and mixed error bounds
# Mixed bound (Higham): |computed − exact| <= K·ε64·(|exact| + Σ_j |∂y/∂x_j|·|x_j − m|) + K·tiny,
# the condition-weighted form: x − max is the first rounding, relative ε/2 in every z_j = x_j − m.


def softmax_case(x: Array, axis: int, g: Array) -> dict[str, tuple[Array, Array]]:
    """op -> (exact forward, its bound scale), and op.grad -> (exact VJP with g, its bound scale).

    g has x's shape for softmax/log_softmax and the keepdims shape for logsumexp (broadcast)."""
    rows, back = mp_rows(x, axis)
    g_rows, _ = mp_rows(np.broadcast_to(g, x.shape), axis)
    out: dict[str, list[list[list[float]]]] = {}
    for row, grow in zip(rows, g_rows, strict=True):
        with mpmath.workdps(DPS):
            s, lse = exact_softmax_row(row)
            m = max(row)
            z = [v - m for v in row]
            n = len(row)
            # rho_i: the relative condition of s_i under relative perturbations of every z_j
            rho = [
                abs(z[i]) * (1 - s[i]) + mpmath.fsum(s[j] * abs(z[j]) for j in range(n) if j != i)
                for i in range(n)
            ]
            gs = mpmath.fsum(a * b for a, b in zip(grow, s))
            gsum = mpmath.fsum(grow)
            gabs = mpmath.fsum(abs(a) for a in grow)
            sgabs = mpmath.fsum(s[j] * abs(grow[j]) * (1 + rho[j]) for j in range(n))
            # forward: softmax (y_i = s_i, Σ_j|J_ij||z_j| = s_i rho_i), log_softmax (rho_i), logsumexp
            items = {
                "softmax": ([s[i] for i in range(n)], [s[i] * (1 + rho[i]) for i in range(n)]),
                "log_softmax": (
                    [z[i] - exact_shift(row) for i in range(n)],
                    [abs(z[i] - exact_shift(row)) + rho[i] for i in range(n)],
                ),
                "logsumexp": ([lse] * n, [abs(lse) + mpmath.fsum(s[j] * abs(row[j]) for j in range(n))] * n),
                "softmax.grad": (
                    [s[i] * (grow[i] - gs) for i in range(n)],
                    [s[i] * ((1 + rho[i]) * (abs(grow[i]) + abs(gs)) + sgabs) for i in range(n)],
                ),
                "log_softmax.grad": (
                    [grow[i] - s[i] * gsum for i in range(n)],
                    [abs(grow[i]) + s[i] * (1 + rho[i]) * gabs for i in range(n)],
                ),
                "logsumexp.grad": (
                    [grow[i] * s[i] for i in range(n)],
                    [abs(grow[i]) * s[i] * (1 + rho[i]) for i in range(n)],
                ),
            }
        for name, (values, scales) in items.items():
            out.setdefault(name, [[], []])
            out[name][0].append([float(v) for v in values])
            out[name][1].append([float(v) for v in scales])
    return {name: (back(v), back(sc)) for name, (v, sc) in out.items()}


def cross_entropy_case(x: Array, targets: Any, g: float) -> dict[str, tuple[Array, Array]]:
    """cross_entropy and its gradient (upstream g), exact, with their bound scales (classes last)."""
    rows, back = mp_rows(x, -1)
    batch = len(rows)
    losses, loss_scales, grads, grad_scales = [], [], [], []
    for row, t in zip(rows, np.asarray(targets).reshape(-1), strict=True):
        with mpmath.workdps(DPS):
            s, _ = exact_softmax_row(row)
            m = max(row)
            n = len(row)
            rho = [
                abs(row[i] - m) * (1 - s[i]) + mpmath.fsum(s[j] * abs(row[j] - m) for j in range(n) if j != i)
                for i in range(n)
            ]
            loss = exact_shift(row) - (row[int(t)] - m)
            losses.append(loss)
            loss_scales.append(loss + rho[int(t)])
            onehot = [1 if j == int(t) else 0 for j in range(n)]
            grads.append([float(g * (s[j] - onehot[j]) / batch) for j in range(n)])
            grad_scales.append([float(abs(g) * (s[j] * (1 + rho[j]) + onehot[j]) / batch) for j in range(n)])
    with mpmath.workdps(DPS):
        value = float(mpmath.fsum(losses) / batch)
        scale = float(mpmath.fsum(loss_scales) / batch)
    return {
        "cross_entropy": (np.asarray(value), np.asarray(scale)),
        "cross_entropy.grad": (back(grads), back(grad_scales)),
    }


def rms_case(x: Array, gain: Array, eps: float, g: Array) -> dict[str, tuple[Array, Array]]:
    """rms_norm's exact forward and VJPs (x and gain) with their bound scales."""
    rows, back = mp_rows(x, -1)
    g_rows, _ = mp_rows(g, -1)
    w = [mpmath.mpf(float(v)) for v in gain]
    ys, y_scales, dxs, dx_scales = [], [], [], []
    dw = [mpmath.mpf(0)] * len(w)
    dw_scale = [mpmath.mpf(0)] * len(w)
    for row, grow in zip(rows, g_rows, strict=True):
        with mpmath.workdps(DPS):
            n = len(row)
            r = 1 / mpmath.sqrt(mpmath.fsum(v * v for v in row) / n + mpmath.mpf(eps))
            gw = [a * b for a, b in zip(grow, w)]
            proj = mpmath.fsum(a * v for a, v in zip(gw, row)) / n
            projabs = mpmath.fsum(abs(a * v) for a, v in zip(gw, row)) / n
            ys.append([float(v * r * wi) for v, wi in zip(row, w)])
            y_scales.append([float(abs(v * r * wi)) for v, wi in zip(row, w)])
            dxs.append([float(r * gw[i] - r**3 * row[i] * proj) for i in range(n)])
            dx_scales.append([float(r * abs(gw[i]) + r**3 * abs(row[i]) * projabs) for i in range(n)])
            dw = [dw[i] + grow[i] * row[i] * r for i in range(n)]
            dw_scale = [dw_scale[i] + abs(grow[i] * row[i] * r) for i in range(n)]
    return {
        "rms_norm": (back(ys), back(y_scales)),
        "rms_norm.grad.x": (back(dxs), back(dx_scales)),
        "rms_norm.grad.gain": (np.asarray([float(v) for v in dw]), np.asarray([float(v) for v in dw_scale])),
    }


def excess(actual: Array, exact: Array, scale: Array, k: float) -> float:
    """max over elements of |actual − exact| / (k·ε64·scale + k·tiny): > 1 violates the bound.

    nan or inf in actual is an infinite violation."""
    actual = np.asarray(actual, dtype=np.float64)
    if not np.all(np.isfinite(actual)):
        return float("inf")
    allowed = k * EPS64 * np.asarray(scale) + k * TINY
    return float(np.max(np.abs(actual - exact) / allowed, initial=0.0))


def assert_within_bound(actual: Array, exact: Array, scale: Array, k: float, inputs: Any) -> None:
    """excess(...) <= 1, or an assertion that says how far: the worst error as a multiple of the bound,
    the error and the bound there, where it is, and the inputs that gave it."""
    ratio = excess(actual, exact, scale, k)
    if ratio <= 1.0:
        return
    actual = np.asarray(actual, dtype=np.float64)
    allowed = k * EPS64 * np.broadcast_to(np.asarray(scale, dtype=np.float64), actual.shape) + k * TINY
    errors = np.where(np.isfinite(actual), np.abs(actual - exact), np.inf) / allowed
    worst = np.unravel_index(int(np.argmax(errors)), actual.shape) if actual.shape else ()
    raise AssertionError(
        f"worst error is {ratio:.3g} times the bound (K = {k:g}) at element {tuple(map(int, worst))}: "
        f"engine gave {float(actual[worst])!r}, exact {float(np.asarray(exact)[worst])!r}, "
        f"bound {float(allowed[worst]):.3g}; inputs {np.asarray(inputs).tolist()}"
    )


# ---------------------------------------------------------------- the naive compositions


def naive_softmax(x: Array, axis: int) -> Any:
    with np.errstate(all="ignore"):
        e = np.exp(x)
        return e / np.sum(e, axis=axis, keepdims=True)


def naive_log_softmax(x: Array, axis: int) -> Any:
    with np.errstate(all="ignore"):
        shifted = x - np.max(x, axis=axis, keepdims=True)  # even shifted, log(softmax) loses tiny 1 − s
        e = np.exp(shifted)
        return np.log(e / np.sum(e, axis=axis, keepdims=True))


def naive_logsumexp(x: Array, axis: int) -> Any:
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axis, keepdims=True)
        return m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))  # log(1 + δ) rounds δ away


def naive_cross_entropy(x: Array, targets: Any) -> Any:
    with np.errstate(all="ignore"):
        s = naive_softmax(x, -1)
        picked = np.take_along_axis(s, np.asarray(targets)[..., np.newaxis], axis=-1)
        return np.asarray(np.mean(-np.log(picked)))


def naive_softmax_grad(x: Array, axis: int, g: Array) -> Any:
    s = naive_softmax(x, axis)
    with np.errstate(all="ignore"):
        return s * (g - np.sum(g * s, axis=axis, keepdims=True))


def naive_rms_norm(x: Array, gain: Array, eps: float) -> Any:
    """mean(x²) unscaled: x² overflows past 1.3e154 (y = 0) and underflows below 1e-154."""
    with np.errstate(all="ignore"):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gain


def eps_outside_rms_norm(x: Array, gain: Array, eps: float) -> Any:
    """eps added after the square root: the normalization differs wherever mean(x²) is near eps."""
    with np.errstate(all="ignore"):
        return x / (np.sqrt(np.mean(x * x, axis=-1, keepdims=True)) + eps) * gain


NAIVE: dict[str, Callable[..., Any]] = {
    "softmax": naive_softmax,
    "log_softmax": naive_log_softmax,
    "logsumexp": naive_logsumexp,
}


def reduce_shape(shape: Sequence[int], axis: int) -> tuple[int, ...]:
    return tuple(1 if i == axis % len(shape) else size for i, size in enumerate(shape))


# ---------------------------------------------------------------- the spec rows as an oracle

PARAM_SYMBOLS = {"axis": "axis", "targets": "t", "eps": "eps"}  # op parameter -> spec symbol


def spec_vjp_with(
    spec_row: Any, inputs: Sequence[Array], upstream: Array | None, params: dict[str, Any]
) -> tuple[Array, tuple[Array, ...]]:
    """The row's forward and VJPs (reductions keep their axis: the value is reshaped to the op's own
    output shape, the upstream to the kept shape), each gradient summed back to its input's shape."""
    from contracts.spec import evaluate
    from contracts.spec.functions import array_functions
    from contracts.spec_suite.cases.tensor import sum_to_shape

    functions = array_functions(np)
    bindings: dict[str, Any] = dict(zip(spec_row["domain"], inputs, strict=True))
    for name, value in params.items():
        if name in PARAM_SYMBOLS:
            bindings[PARAM_SYMBOLS[name]] = np.asarray(value) if name == "targets" else value
    frame = np.asarray(evaluate(spec_row["forward"], bindings, functions), dtype=np.float64)
    g = np.ones(()) if upstream is None else np.asarray(upstream, dtype=np.float64)
    bindings["g"] = np.reshape(g, frame.shape)
    grads = []
    for name, x in zip(spec_row["domain"], inputs, strict=True):
        grad = np.asarray(evaluate(spec_row["grads"][name], bindings, functions), dtype=np.float64)
        grads.append(sum_to_shape(np.broadcast_to(grad, np.broadcast_shapes(grad.shape, x.shape)), x.shape))
    return frame, tuple(grads)


# ---------------------------------------------------------------- failure attempts (through the engine)


def refuse_with(engine: Any, spec_row: Any, case: dict[str, Any]) -> None:
    """The row's exception and message (the case's exact message when it gives one), and no tensor node
    created before the raise (the graph_nodes probe, read from the tensor node counter)."""
    import pytest

    from contracts.spec_suite.probes import Attempt, assert_refused, exception_type
    from contracts.spec_suite.spec_rows import require
    from contracts.tensor import reset_node_counter

    require(engine, "tensor.param-errors", spec_row.id)
    inputs = [np.asarray(item, dtype=np.float64) for item in case["inputs"]]
    params = dict(case["params"])
    if "targets" in params:
        params["targets"] = np.asarray(params["targets"])
    attempt = Attempt(lambda: engine.tensor_vjp_with(case["op"], inputs, None, params))
    counter = reset_node_counter()
    assert_refused(spec_row, attempt)
    assert 0 == counter.nodes, f"{spec_row.id}: {counter.nodes} tensor node(s) created before the raise"
    if "message" in case:
        with pytest.raises(exception_type(spec_row["exception"])) as raised:
            attempt.action()
        assert case["message"] == str(raised.value)


def naive_log_softmax_grad(x: Array, axis: int, g: Array) -> Any:
    """The VJP autodiff gives log(softmax(x)): softmax's VJP of g / s, with s underflowing to 0."""
    s = naive_softmax(x - np.max(x, axis=axis, keepdims=True), axis)
    with np.errstate(all="ignore"):
        inner = g / s
        return s * (inner - np.sum(inner * s, axis=axis, keepdims=True))


def naive_cross_entropy_grad(x: Array, targets: Any) -> Any:
    onehot = (np.arange(x.shape[-1]) == np.asarray(targets)[..., np.newaxis]).astype(np.float64)
    with np.errstate(all="ignore"):
        return (naive_softmax(x, -1) - onehot) / (x.size // x.shape[-1])
