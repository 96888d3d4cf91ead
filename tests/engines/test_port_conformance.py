"""The port tests against deliberately broken module adapters (tests/common/broken_module_engines.py),
in real in-process pytest sessions: each adapter fails exactly the rows it breaks, no other."""

from __future__ import annotations

import os

import pytest

from tests.common.paths import SUITE
from tests.common.sessions import RowOutcomes, run_suite

BROKEN = "tests.common.broken_module_engines"
PORT_TESTS = (
    f"{SUITE}/properties/test_port_stage05.py",
    f"{SUITE}/properties/test_port_stage07.py",
    f"{SUITE}/golden/test_port_golden.py",
)
COUNT_ROWS = {"S05.params.token", "S05.params.embedding", "S07.params.linear", "S07.params.mlp"}
# A failure inside a row's clause is charged to that row; a bare assert to every row its test names.
EXPECTED = {
    # the first tensor (token_weight, fc1.weight) one short: the counts, and the Linear tests that also
    # check count == product of the shape (weight layout, bias); the names and storage stay right
    "WrongParameterCount": COUNT_ROWS | {"S07.rule.weight-layout", "S07.rule.bias-absent"},
    # fc1 reported as linear1: the Linear's names (its one test names its count, layout and bias rows)
    # and the MLP's names; the MLP's count stays right
    "RenamedParameter": {
        "S07.params.linear",
        "S07.rule.weight-layout",
        "S07.rule.bias-absent",
        "S07.rule.parameter-identity",
    },
    # a forward that swaps storage: the forward contract, the update between forwards, the seal
    "ForwardReplacesParameter": {
        "S07.rule.forward-leaves-parameters",
        "S07.rule.optimizer-update",
        "S07.rule.seal-current-storage",
    },
    # one node more per graph than planned: every graph count, but not the ReLUs' share of a model
    # (model minus its Linears) nor the bias's (with minus without)
    "ExtraGraphNode": {"S05.cost.embedding-forward", "S07.cost.linear", "S07.cost.mlp"},
    # a zero bias node per output of a bias-free Linear: the Linear's and the MLP's counts and the
    # bias's delta; the ReLUs' share is right
    "BiasNodeOnEveryOutput": {"S07.cost.linear", "S07.cost.mlp", "S07.cost.bias-delta"},
    # an empty id list accepted, positions past the context wrapped: the two sequence refusals only
    "EmptySequenceAndWrappingPositions": {"S05.fail.sequence-empty", "S05.fail.sequence-length"},
}

# The statistical init tests (the slowest, 4096 draws per seed) read no count, name, identity or graph
# node, which is all these adapters break; every other port test runs.
SELECTION = "not init_sample_variance and not layer_roles and not init_statistical"
# Each session runs the port suite once more (~seconds): not per mutant (mutmut sets MUTANT_UNDER_TEST).
pytestmark = [
    pytest.mark.engine_run,
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="whole sessions per mutant"),
]


def run_port_suite(engine: str) -> RowOutcomes:
    return run_suite(PORT_TESTS, f"{BROKEN}:{engine}", SELECTION)


@pytest.mark.parametrize("engine", sorted(EXPECTED))
def test_broken_module_adapter_fails_exactly_its_rows(engine: str) -> None:
    """Each broken module adapter fails the rows it breaks; every other port row (outside the
    statistical init tests) passes or is n/a."""
    outcomes = run_port_suite(engine)
    assert EXPECTED[engine] == outcomes.failed()
    assert "passed" in outcomes.statuses()


BLOCK_TESTS = (f"{SUITE}/properties/test_port_stage08.py", f"{SUITE}/golden/test_port_stage08_golden.py")
# torch itself builds blocks the spec refuses (S08.fail.norm-config, norm-type, norm-width,
# residual-width fail on torch by measurement): these adapters break the forward, so the construction
# refusals are left out and every other block row must pass but the ones each adapter breaks
BLOCK_SELECTION = "not refus"
BLOCK_EXPECTED = {
    # the output is MLP(RMSNorm(x)): the forward rows only (the norm alone and the gains are right)
    "TorchBlockWithoutResidual": {"S08.rule.block-forward"},
    # a wrong norm: the forward, and the gain-seal checks that read the norm with new gains
    "TorchBlockEpsOutsideSqrt": {"S08.rule.block-forward", "S08.rule.gain-seal"},
    # gains changed by a forward: the postcondition row, the seal's repeated forwards, and the forward
    # compared with numpy over the gains reported after it
    "TorchBlockForwardScalesGain": {"S08.fail.gain-state", "S08.rule.gain-seal", "S08.rule.block-forward"},
}


@pytest.mark.parametrize("engine", sorted(BLOCK_EXPECTED))
def test_broken_torch_block_fails_exactly_its_rows(engine: str) -> None:
    """Each broken torch-like block adapter fails the block rows it breaks; every other block row outside
    the construction refusals passes."""
    pytest.importorskip("torch")
    outcomes = run_suite(BLOCK_TESTS, f"{BROKEN}:{engine}", BLOCK_SELECTION)
    assert BLOCK_EXPECTED[engine] == outcomes.failed()
    assert "passed" in outcomes.statuses()
