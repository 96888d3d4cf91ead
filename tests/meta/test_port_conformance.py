"""The port tests against deliberately broken module adapters (tests/meta/broken_module_engines.py),
in real in-process pytest sessions: each adapter fails exactly the rows it breaks, no other."""

from __future__ import annotations

import os
from collections import defaultdict

import pytest
from hypothesis import settings

BROKEN = "tests.meta.broken_module_engines"
PORT_TESTS = (
    "tests/properties/test_port_stage05.py",
    "tests/properties/test_port_stage07.py",
    "tests/golden/test_port_golden.py",
)
COUNT_ROWS = {"S05.params.token", "S05.params.embedding", "S07.params.linear", "S07.params.mlp"}
# rows sharing a test with a broken row fail with it: a test proves all the rows it names
EXPECTED = {
    # the first tensor (token_weight, fc1.weight) one short: counts, and the tests that also check
    # count == product of the shape (weight layout, bias) or the sum over a model (identity)
    "WrongParameterCount": COUNT_ROWS
    | {"S07.rule.weight-layout", "S07.rule.bias-absent", "S07.rule.parameter-identity"},
    # fc1 reported as linear1: every test that reads a Linear's or an MLP's logical names
    "RenamedParameter": {
        "S07.params.linear",
        "S07.params.mlp",
        "S07.rule.weight-layout",
        "S07.rule.bias-absent",
        "S07.rule.parameter-identity",
    },
    # a forward that swaps storage: the forward contract, the update between forwards, the seal
    "ForwardReplacesParameter": {
        "S07.rule.forward-contract",
        "S07.rule.optimizer-update",
        "S07.rule.seal-current-storage",
    },
    # one node more than planned: every graph-count row
    "ExtraGraphNode": {
        "S05.cost.embedding-forward",
        "S07.cost.linear",
        "S07.cost.mlp",
        "S07.cost.relu",
        "S07.cost.bias-delta",
    },
}

# The statistical init tests (the slowest, 4096 draws per seed) read no count, name, identity or graph
# node, which is all these adapters break; every other port test runs.
SELECTION = "not init_sample_variance and not layer_roles and not init_statistical"
# Each session runs the port suite once more (~seconds): not per mutant (mutmut sets MUTANT_UNDER_TEST).
pytestmark = pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="whole sessions per mutant")


class RowOutcomes:
    """A pytest plugin: per spec row, the outcomes of the tests that name it."""

    def __init__(self) -> None:
        self.outcomes: dict[str, set[str]] = defaultdict(set)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> object:
        report = yield
        assert isinstance(report, pytest.TestReport)
        if report.when == "call" or report.outcome != "passed":
            for marker in item.iter_markers("spec"):
                for row_id in marker.args:
                    self.outcomes[row_id].add(report.outcome)
        return report

    def failed(self) -> set[str]:
        return {row_id for row_id, outcomes in self.outcomes.items() if "failed" in outcomes}


def run_port_suite(engine: str) -> RowOutcomes:
    return run_suite(PORT_TESTS, f"{BROKEN}:{engine}", SELECTION)


def run_suite(
    tests: tuple[str, ...],
    impl: str,
    selection: str,
    expected: pytest.ExitCode = pytest.ExitCode.TESTS_FAILED,
) -> RowOutcomes:
    """The tests, in a pytest session of their own on the engine impl (ending with the expected exit
    code); their outcomes per spec row."""
    plugin = RowOutcomes()
    profile = settings.get_current_profile_name()
    try:
        code = pytest.main(
            [
                *tests,
                "--impl",
                impl,
                "--hypothesis-profile=mutation",
                "-q",
                "-p",
                "no:randomly",
                "-p",
                "no:cacheprovider",
                "--no-header",
                "-k",
                selection,
                "-o",
                "addopts=",
            ],
            plugins=[plugin],
        )
    finally:  # the inner session loads its own hypothesis profile: give the outer one back
        settings.load_profile(profile)
    assert expected == code
    return plugin


@pytest.mark.parametrize("engine", sorted(EXPECTED))
def test_broken_module_adapter_fails_exactly_its_rows(engine: str) -> None:
    """Each broken module adapter fails the rows it breaks; every other port row (outside the
    statistical init tests) passes or is n/a."""
    outcomes = run_port_suite(engine)
    assert EXPECTED[engine] == outcomes.failed()
    assert {"passed"} <= set().union(*outcomes.outcomes.values())


BLOCK_TESTS = ("tests/properties/test_port_stage08.py", "tests/golden/test_port_stage08_golden.py")
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
    assert {"passed"} <= set().union(*outcomes.outcomes.values())
