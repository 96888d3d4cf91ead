"""What verify --quick shrinks besides the deep graph: the draws per statistical check of the init rows
(--contracts-statistical-samples, 512 instead of the seed's 4096) and the examples of the costliest tests.

Both trade power for time on a slow engine; these tests prove the trade is bounded (the fewest draws
allowed still reject a variance half or twice its target), that a smaller count is refused before any
test runs, and that the engine really builds the modules the count asks for.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from contracts.core.init import InitSpec
from contracts.engines.reference import ReferenceEngine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage07 import (
    FEWEST_SAMPLES,
    SEED_FAN_IN,
    SEED_SAMPLES,
    statistical_samples_error,
)
from contracts.verify.runner import QUICK_SAMPLES
from tests.common.paths import SUITE
from tests.properties.test_stage07_init import POWER, rejection_probability, required_samples

ROOT = Path(__file__).resolve().parents[2]
SIZES_LOG = "CONTRACTS_TEST_SIZES_LOG"


class SizeSpy(ReferenceEngine):
    """The reference engine, logging the (in, out) sizes of each Linear and the widths of each MLP it
    builds to the file named by $CONTRACTS_TEST_SIZES_LOG."""

    def module_linear(
        self, in_features: int, out_features: int, use_bias: bool, init: InitSpec | None = None
    ) -> Any:
        log_sizes(["linear", in_features, out_features])
        return super().module_linear(in_features, out_features, use_bias, init)

    def module_mlp(self, widths: Sequence[int], use_bias: bool, init: InitSpec | None = None) -> Any:
        log_sizes(["mlp", *widths])
        return super().module_mlp(widths, use_bias, init)


def log_sizes(entry: list[Any]) -> None:
    with open(os.environ[SIZES_LOG], "a") as log:
        log.write(json.dumps(entry) + "\n")


def run_suite(tmp_path: Path, *arguments: str) -> tuple[subprocess.CompletedProcess[str], list[list[Any]]]:
    """pytest over the three statistical port tests on SizeSpy, in a child; the sizes it built."""
    log = tmp_path / "sizes.jsonl"
    tests = [
        f"{SUITE}/properties/test_port_contracts.py::test_port_output_variance",
        f"{SUITE}/properties/test_port_stage07.py::test_port_init_sample_variance[standard-normal]",
        f"{SUITE}/properties/test_port_stage07.py::test_port_mlp_layer_roles[normal]",
    ]
    env = {**os.environ, SIZES_LOG: str(log), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-cov", *tests]
    command += ["--contracts-impl", f"{__name__}:SizeSpy", *arguments]
    completed = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    sizes = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return completed, sizes


def test_the_fewest_samples_reject_half_and_double_the_variance() -> None:
    """FEWEST_SAMPLES is the smallest multiple of C_in = 64 at which a check rejects weights whose
    variance is half or twice the target with probability >= 0.99 (normal and uniform draws)."""
    needed = max(
        required_samples(distribution, math.sqrt(ratio))
        for distribution in ("normal", "uniform")
        for ratio in (0.5, 2.0)
    )
    assert -(-needed // SEED_FAN_IN) * SEED_FAN_IN == FEWEST_SAMPLES
    assert POWER <= rejection_probability("normal", math.sqrt(0.5), FEWEST_SAMPLES)


@pytest.mark.parametrize(
    "samples",
    [
        pytest.param(FEWEST_SAMPLES - SEED_FAN_IN, id="too-few"),
        pytest.param(FEWEST_SAMPLES + 1, id="not-a-multiple-of-64"),
        pytest.param(0, id="zero"),
        pytest.param(-SEED_SAMPLES, id="negative"),
    ],
)
def test_a_count_that_cannot_fail_is_refused(samples: int) -> None:
    """Counts below 448 or not a multiple of C_in = 64: the error names the value and the relation."""
    assert (
        f"--contracts-statistical-samples: got {samples}, expected a multiple of 64 (the seed's C_in) "
        "and at least 448 "
        "(fewer draws would miss a variance half or twice its target)"
    ) == statistical_samples_error(samples)


def test_the_seed_and_quick_counts_are_accepted() -> None:
    """The seed's 4096 (the default, read from S07.rule.init-statistical) and verify --quick's 512."""
    assert (4096, None, None) == (
        SEED_SAMPLES,
        statistical_samples_error(SEED_SAMPLES),
        statistical_samples_error(QUICK_SAMPLES),
    )


def test_the_engine_builds_what_the_count_asks_for(tmp_path: Path) -> None:
    """With --contracts-statistical-samples 1024 each check's module holds 1024 draws: Linear(4, 1024) for the
    output variance, (16, 64) weights, a 64 -> 16 -> 64 MLP; without it, the seed's 4096."""
    completed, sizes = run_suite(tmp_path, "--contracts-statistical-samples", "1024")
    assert 0 == completed.returncode, completed.stdout[-2000:]
    asked = [["linear", 4, 1024]] * 3 + [["linear", 64, 16]] * 3 + [["mlp", 64, 16, 64]] * 3
    assert asked == sizes
    (tmp_path / "sizes.jsonl").unlink()
    completed, sizes = run_suite(tmp_path)
    assert 0 == completed.returncode, completed.stdout[-2000:]
    assert [["linear", 4, 4096]] * 3 + [["linear", 64, 64]] * 3 + [["mlp", 64, 64, 64]] * 3 == sizes


def test_a_refused_count_stops_pytest_before_any_test(tmp_path: Path) -> None:
    """--contracts-statistical-samples 384: a usage error (exit 4) in one line, nothing built."""
    completed, sizes = run_suite(tmp_path, "--contracts-statistical-samples", "384")
    assert (4, []) == (completed.returncode, sizes)
    assert [f"ERROR: {statistical_samples_error(384)}"] == completed.stderr.strip().splitlines()


def test_costly_tests_take_their_quick_count_only_under_the_quick_profile() -> None:
    """s.examples(full, quick): the quick count under the quick profile, the full one under any other."""
    current = settings.get_current_profile_name()
    try:
        counts = []
        for profile in ("quick", "ci", "mutation"):
            settings.load_profile(profile)
            counts.append(s.examples(3, quick=1))
    finally:
        settings.load_profile(current)
    assert [1, 3, 3] == counts


@pytest.mark.parametrize("seconds", ["0", "-1", "inf", "1e300"])
def test_a_time_limit_that_cannot_work_stops_pytest_before_any_test(tmp_path: Path, seconds: str) -> None:
    """--contracts-test-timeout 0, -1, inf or past a day (verify checks its --timeout alike): exit 4 in one
    line."""
    completed, sizes = run_suite(tmp_path, "--contracts-test-timeout", seconds)
    assert (4, []) == (completed.returncode, sizes)
    expected = (
        f"ERROR: --contracts-test-timeout: got {float(seconds)}, expected a number of seconds above 0, "
    )
    expected += "at most 86400"
    assert [expected] == completed.stderr.strip().splitlines()
