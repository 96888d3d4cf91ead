"""The backward-stable bounds of S06.rule.forward-error-stable and S06.rule.grad-error-stable: the strict
condition-weighted scale of S06.rule.forward-error / S06.rule.grad-error plus (1 + M)·λ, M = max|x| of the
slice and λ the output's sensitivity to an error in the slice's log-sum (what a result computed from the
rounded log-sum carries); and the compositions that show where the two bounds part. Nothing here calls
contracts.tensor."""

from __future__ import annotations

from typing import Any

import numpy as np

from contracts.spec_suite.cases.stage06 import Array, cross_entropy_case, softmax_case


def magnitude(x: Array, axis: int) -> Array:
    """1 + M per slice along axis, M = max|x_j| (kept as a size-1 axis, so it broadcasts back)."""
    largest: Array = np.max(np.abs(np.asarray(x, dtype=np.float64)), axis=axis, keepdims=True)
    return 1.0 + largest


def sensitivities(s: Array, g: Array, axis: int) -> dict[str, Array]:
    """op -> λ: how far each output moves, per unit error of the log-sum y, when s = exp(x − y) is formed
    from it (every s_j off by the same relative error): softmax s_i; log_softmax and logsumexp 1 (∂/∂y is
    ±1); the VJPs, linear in s, by their terms' magnitudes."""
    gs = np.sum(g * s, axis=axis, keepdims=True)
    sg_abs = np.sum(s * np.abs(g), axis=axis, keepdims=True)
    g_abs = np.sum(np.abs(g), axis=axis, keepdims=True)
    return {
        "softmax": s,
        "log_softmax": np.ones(s.shape),
        "logsumexp": np.ones(s.shape),
        "softmax.grad": s * (np.abs(g) + np.abs(gs) + sg_abs),
        "log_softmax.grad": s * g_abs,
        "logsumexp.grad": np.abs(g) * s,
    }


def stable_softmax_case(x: Array, axis: int, g: Array) -> dict[str, tuple[Array, Array]]:
    """op -> (exact, backward-stable scale) for the three axis ops and their VJPs (g as in softmax_case)."""
    strict = softmax_case(x, axis, g)
    s = strict["softmax"][0]
    grow = np.broadcast_to(np.asarray(g, dtype=np.float64), s.shape)
    size = magnitude(x, axis)
    return {
        name: (exact, scale + size * sensitivities(s, grow, axis)[name])
        for name, (exact, scale) in strict.items()
    }


def stable_cross_entropy_case(x: Array, targets: Any, g: float) -> dict[str, tuple[Array, Array]]:
    """cross_entropy and its gradient (classes last, upstream g) with their backward-stable scales: the
    loss adds mean_b (1 + M_b), the gradient |g|·s·(1 + M_b)/B."""
    strict = cross_entropy_case(x, targets, g)
    s = softmax_case(x, -1, np.ones(np.shape(x)))["softmax"][0]
    size = magnitude(x, -1)
    batch = s.size // s.shape[-1]
    value, value_scale = strict["cross_entropy"]
    grad, grad_scale = strict["cross_entropy.grad"]
    return {
        "cross_entropy": (value, value_scale + np.mean(size)),
        "cross_entropy.grad": (grad, grad_scale + abs(g) * s * size / batch),
    }


# ---------------------------------------------------------------- through the rounded log-sum


def rounded_log_sum(x: Array, axis: int) -> Array:
    """The slice's log-sum m + log Σ exp(x − m) rounded to float64, as an ordinary stable engine forms it:
    its absolute error is about ε64·|x|, and log of the sum rounds a tail below ε64 to 0."""
    m = np.max(x, axis=axis, keepdims=True)
    return np.asarray(m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)), dtype=np.float64)


def through_rounded_log_sum(op: str, x: Array, axis: int, g: Array, targets: Any) -> Array:
    """op's value (op) or VJP (op.grad) formed from the rounded log-sum: s = exp(x − y), ℓ = x − y."""
    y = rounded_log_sum(x, axis)
    s = np.exp(x - y)
    if op == "cross_entropy":
        picked = np.take_along_axis(x, np.asarray(targets)[..., np.newaxis], axis=-1)
        return np.asarray(np.mean(y - picked))
    if op == "cross_entropy.grad":
        onehot = np.arange(x.shape[-1]) == np.asarray(targets)[..., np.newaxis]
        return np.asarray(g * (s - onehot) / (x.size // x.shape[-1]))
    forms: dict[str, Any] = {
        "softmax": lambda: s,
        "log_softmax": lambda: x - y,
        "logsumexp": lambda: y,
        "softmax.grad": lambda: s * (g - np.sum(g * s, axis=axis, keepdims=True)),
        "log_softmax.grad": lambda: g - s * np.sum(g, axis=axis, keepdims=True),
        "logsumexp.grad": lambda: g * s,
    }
    return np.asarray(forms[op](), dtype=np.float64)
