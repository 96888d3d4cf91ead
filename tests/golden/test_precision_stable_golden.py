"""Goldens of the backward-stable precision rows: each hand case through the engine, within the stable
bound of the example's exact value; the example's rounded result (what an ordinary stable engine gives)
inside the stable bound and outside the strict one; the naive result outside both."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.stable import (
    stable_cross_entropy_case,
    stable_softmax_case,
    through_rounded_log_sum,
)
from contracts.spec_suite.cases.stage06 import (
    EPS64,
    cross_entropy_case,
    eps_outside_rms_norm,
    excess,
    naive_cross_entropy_grad,
    naive_rms_norm,
    naive_softmax,
    rms_case,
    softmax_case,
)
from contracts.spec_suite.spec_rows import (
    assert_engine_gives,
    assert_naive_form,
    example_params,
    require,
    row,
)

STRICT = {
    "S06.rule.forward-error-stable": row("S06.rule.forward-error"),
    "S06.rule.grad-error-stable": row("S06.rule.grad-error"),
}
Oracles = dict[str, tuple[np.ndarray, np.ndarray]]


def prepared(example: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    (x,) = [np.asarray(item, dtype=np.float64) for item in example["inputs"]]
    kwargs = dict(example["params"])
    if "targets" in kwargs:
        kwargs["targets"] = np.asarray(kwargs["targets"], dtype=np.int64)
    return x, kwargs


def oracles(op: str, x: np.ndarray, kwargs: dict[str, Any]) -> tuple[Oracles, Oracles]:
    """(stable, strict): op -> (exact, scale) at the example's input as one slice (upstream 1), each
    reshaped to the op's own output by the caller."""
    if op == "cross_entropy":
        targets = kwargs["targets"]
        return stable_cross_entropy_case(x, targets, 1.0), cross_entropy_case(x, targets, 1.0)
    row_x = x[np.newaxis]
    ones = np.ones(row_x.shape)
    return stable_softmax_case(row_x, 1, ones), softmax_case(row_x, 1, ones)


def shaped(pair: tuple[np.ndarray, np.ndarray], like: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An oracle pair cut to an output's shape (logsumexp's value repeats along the slice)."""
    exact, scale = (np.asarray(part) for part in pair)
    size = np.asarray(like).size
    return exact.reshape(-1)[:size].reshape(np.shape(like)), scale.reshape(-1)[:size].reshape(np.shape(like))


def inside(actual: Any, pair: tuple[np.ndarray, np.ndarray], k: float) -> bool:
    return excess(np.asarray(actual, dtype=np.float64), *pair, k) <= 1.0


NAIVE = {
    "softmax": lambda x, targets: naive_softmax(x, 0),
    "cross_entropy.grad": lambda x, targets: naive_cross_entropy_grad(x, targets),
}


def check_stable_example(
    engine_gave: np.ndarray, name: str, spec_row: SpecRow, example: dict[str, Any]
) -> None:
    """The engine's result (name: op or op.grad) within the stable bound of the example's exact value, which
    is the oracle's; a rounded result is the rounded log-sum's, inside the stable bound only; a naive one
    is outside the stable bound."""
    op = name.removesuffix(".grad")
    x, kwargs = prepared(example)
    stable, strict = oracles(op, x, kwargs)
    exact = np.asarray(example["exact"], dtype=np.float64)
    bound, strict_bound = shaped(stable[name], exact), shaped(strict[name], exact)
    assert_engine_gives(
        np.ravel(exact), np.ravel(bound[0]), rel=1e-15, gave="the oracle", source="the example"
    )
    assert inside(np.reshape(engine_gave, exact.shape), (exact, bound[1]), spec_row["k"])
    if "rounded" in example:
        slices = x if op == "cross_entropy" else x[np.newaxis]
        rounded = through_rounded_log_sum(name, slices, 1, np.ones(slices.shape), kwargs.get("targets"))
        rounded = np.reshape(rounded[..., : exact.size] if op == "logsumexp" else rounded, exact.shape)
        assert np.asarray(example["rounded"]).tolist() == rounded.tolist()
        assert (True, False) == (
            inside(rounded, (exact, bound[1]), spec_row["k"]),
            inside(rounded, (exact, strict_bound[1]), STRICT[spec_row.id]["k"]),
        )
    if "naive" in example:
        naive = np.asarray(NAIVE[name](x, kwargs.get("targets")), dtype=np.float64)
        assert_naive_form(example["naive"], naive)
        assert not inside(naive, (exact, bound[1]), spec_row["k"])


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S06.rule.forward-error-stable")]))
def test_forward_error_stable_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """log_softmax([0, −40]) and CE of a 40-logit margin given as 0 (log(1 + tail)), log_softmax at 1e4
    through the rounded log-sum (~4,000·ε64 off): inside this bound, outside the strict one; softmax([800, 0])
    = [1, 0] (naive: nan, outside)."""
    require(engine, f"tensor.{example['op']}", spec_row.id)
    x, kwargs = prepared(example)
    upstream = None if example["op"] == "cross_entropy" else np.ones(x.shape)
    value, _ = engine.tensor_vjp_with(example["op"], [x], upstream, kwargs)
    check_stable_example(value, example["op"], spec_row, example)


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S06.rule.grad-error-stable")]))
def test_grad_error_stable_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """logsumexp's gradient at [1e4, 1e4 − 1] through the rounded log-sum (torch's backward, ~4,000·ε64 off):
    inside this bound, outside the strict one; the CE gradient at an 800-logit margin is [0, 0] (naive:
    nan)."""
    require(engine, f"tensor.{example['op']}", spec_row.id)
    x, kwargs = prepared(example)
    _, (grad,) = engine.tensor_vjp_with(example["op"], [x], None, kwargs)
    check_stable_example(grad, f"{example['op']}.grad", spec_row, example)


RMS_NAIVE = {"unscaled": naive_rms_norm, "eps-outside": eps_outside_rms_norm}


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S08.rule.stability-stable")]))
def test_rms_norm_stable_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """x = ±1e50 normalizes to ±1 and 1e-50 (below eps) to x / 1e-6, unscaled as well as scaled; ms = eps =
    1e-12 at unit scale gives 1/√(1 + 1e-12), eps outside the sqrt 2,250·ε64 off: outside the bound."""
    require(engine, "tensor.rms_norm", spec_row.id)
    x, gain = (np.asarray(item, dtype=np.float64) for item in example["inputs"])
    eps = example["params"]["eps"]
    value, _ = engine.tensor_vjp_with("rms_norm", [x, gain], np.ones(x.shape), {"eps": eps})
    exact, scale = rms_case(x, gain, eps, np.ones(x.shape))["rms_norm"]
    assert_engine_gives(example["value"], exact.tolist(), rel=1e-15, gave="the oracle", source="the example")
    assert_engine_gives(np.asarray(example["value"]), value, rel=spec_row["k"] * EPS64, abs=0)
    naive = RMS_NAIVE[example["naive_form"]](x, gain, eps)
    assert np.asarray(example["naive"]).tolist() == naive.tolist()
    assert (example["naive_form"] == "unscaled") == inside(naive, (exact, scale), spec_row["k"])
