"""The engine-level refusal and port-contract tests (tests/properties/test_tensor_refusals.py,
test_port_contracts.py) against deliberately broken adapters, in real in-process pytest sessions:
each adapter fails exactly the rows it breaks, no other."""

from __future__ import annotations

import os

import pytest

from tests.common.paths import SUITE
from tests.common.sessions import RowOutcomes, run_suite

TESTS = (
    f"{SUITE}/properties/test_tensor_refusals.py",
    f"{SUITE}/properties/test_port_contracts.py",
    f"{SUITE}/properties/test_scalar_engine_rows.py",
)
# the statistical output-variance test (3 x 4096 outputs) reads no family, grad, data or width
SELECTION = "not output_variance"
SHAPE_FAMILY = {
    "T.fail.broadcast",
    "T.fail.matmul-inner",
    "T.fail.matmul-batch",
    "T.fail.matmul-scalar",
    "T.fail.backward-nonscalar",
    "T.fail.upstream-shape",
    "S06.fail.axis",
    "S06.fail.empty-axis",
    "S06.fail.target-shape",
    "S08.fail.gain-shape",
    "S07.fail.input-width",
}
# the precedence rows whose engine pairs end in a shape fault: with ShapeError read as ValueError, the
# earlier shape fault (or a shape fault before a ValueError one) is judged as the wrong family
SHAPE_ORDERS = {"T.order.matmul", "S06.order.cross-entropy", "S08.order.rms-norm"}
EXPECTED = {
    # ShapeError declared as the ValueError family: every ShapeError row, and the orders it decides
    "tests.common.broken_engines:ShapeErrorsMappedAsValueError": SHAPE_FAMILY | SHAPE_ORDERS,
    # grads zeroed before a refused backward: the rows whose probe is gradients_written, and the order
    # test that reads the grads after a refused non-finite upstream
    "tests.common.broken_engines:BackwardClearsGradsFirst": {
        "T.fail.backward-nonscalar",
        "T.fail.upstream-shape",
        "T.fail.upstream-non-finite",
        "T.order.backward",
    },
    # bools cast to 1.0/0.0, a huge int to numpy's OverflowError
    "tests.common.broken_engines:DataCastToFloat": {
        "T.fail.dtype",
        "T.fail.bool-element",
        "T.fail.element-range",
    },
    "tests.common.broken_engines:ProgramDropsTheLastStep": {"T.rule.deep-graph"},
    # c - v computed as v - c: the constant-operands test, which also names the sub gradient row
    "tests.common.broken_engines:ReflectedSubtractionSwapped": {"S03.rule.constant-operands", "S03.grad.sub"},
    "tests.common.broken_engines:PowCastsBoolExponent": {"S03.fail.pow-exponent"},
    "tests.common.broken_module_engines:InitDependsOnWidths": {"S07.rule.init-deterministic"},
    "tests.common.broken_module_engines:ForwardDropsExtraColumns": {"S07.fail.input-width"},
    "tests.common.broken_module_engines:SizesCoercedToInt": {"S05.fail.config-type", "S07.fail.plan-type"},
}
pytestmark = [
    pytest.mark.engine_run,
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="whole sessions per mutant"),
]


@pytest.mark.parametrize("engine", sorted(EXPECTED), ids=lambda path: path.rpartition(":")[2])
def test_broken_adapter_fails_exactly_its_rows(engine: str) -> None:
    """Each broken adapter fails the rows it breaks; every other row of these tests passes or is n/a."""
    outcomes: RowOutcomes = run_suite(TESTS, engine, SELECTION)
    assert EXPECTED[engine] == outcomes.failed()
    assert "passed" in outcomes.statuses()


DOMAIN_TESTS = (
    f"{SUITE}/properties/test_tensor_refusals.py",
    f"{SUITE}/properties/test_tensor_contracts.py",
    f"{SUITE}/golden/test_tensor_golden.py",
)


def test_a_correct_engine_with_its_own_domain_messages_passes() -> None:
    """exp's overflow and log's domain refused as OverflowError / ValueError in the engine's own words:
    both rows pass on the engine (judged by family); the spec's wording is the reference's own."""
    outcomes = run_suite(
        DOMAIN_TESTS, "tests.common.correct_engines:OwnDomainMessages", "exp or log", pytest.ExitCode.OK
    )
    statuses = {row_id: result.status for row_id, result in outcomes.results.items()}
    assert (set(), "passed", "passed") == (
        outcomes.failed(),
        statuses["T.fail.exp-overflow"],
        statuses["T.fail.log-domain"],
    )
