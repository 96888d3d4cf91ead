"""The verify runner's decisions that need no pytest run: where the suite is, which engine, which
rows, and the pytest command it builds."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import contracts
from contracts.verify.runner import (
    VerifyError,
    VerifyOptions,
    find_suite,
    pytest_command,
    resolve_engine,
    spec_rows,
    split_prefixes,
    worker_count,
)

ROOT = Path(__file__).resolve().parents[2]


def test_suite_from_option_environment_and_package() -> None:
    """--suite wins, then CONTRACTS_SUITE, then the clone the package was installed from."""
    assert (ROOT, ROOT, ROOT) == (
        find_suite(str(ROOT), {}),
        find_suite(None, {"CONTRACTS_SUITE": str(ROOT)}),
        find_suite(None, {}),
    )


def test_suite_falls_back_to_the_current_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An installed (non-editable) package has no tests beside it: the current clone is used."""
    monkeypatch.setattr(contracts, "__file__", str(tmp_path / "site" / "contracts" / "__init__.py"))
    monkeypatch.chdir(ROOT)
    assert ROOT == find_suite(None, {})


def test_no_suite_anywhere_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without a suite beside the package or in the current directory, the error says what to pass."""
    monkeypatch.setattr(contracts, "__file__", str(tmp_path / "site" / "contracts" / "__init__.py"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        VerifyError, match=r"cannot find the spec suite .* pass --suite PATH, or set CONTRACTS_SUITE"
    ):
        find_suite(None, {})


def test_unloadable_specs_are_a_clear_error(tmp_path: Path) -> None:
    """A spec directory that cannot be loaded is named in the error."""
    with pytest.raises(VerifyError, match=f"cannot load the spec rows from {tmp_path}"):
        spec_rows(ROOT, {"CONTRACTS_SPECS": str(tmp_path)})


def test_engine_errors_are_verify_errors() -> None:
    """A module without the class, or a class that is not an Engine, is an 'unknown engine' error."""
    with pytest.raises(VerifyError, match=r"unknown engine 'json:Nothing' \(AttributeError"):
        resolve_engine("json:Nothing")
    assert "reference" == resolve_engine("reference").name


def test_pytest_command_carries_the_selection() -> None:
    """The child pytest gets the plugin, the engine, the profile, the rows, -k, -n and extra arguments."""
    options = VerifyOptions(rows=["S03,T.grad", " "], keyword="not slow", workers="2", pytest_args=["-x"])
    command = pytest_command(options, "torch", ROOT, Path("out.json"))
    assert [sys.executable, "-m", "pytest", "tests/properties", "tests/golden"] == command[:5]
    joined = " ".join(command[5:])
    for part in (
        "-p contracts.verify.plugin --contracts-verify-out out.json",
        "--impl torch --hypothesis-profile=ci",
        "--contracts-progress --contracts-rows S03 --contracts-rows T.grad -k not slow -n 2 -x",
    ):
        assert part in joined


def test_quiet_run_has_no_progress_and_no_workers() -> None:
    """-q drops the progress option; no -n means no xdist."""
    command = pytest_command(VerifyOptions(progress=False), "reference", ROOT, Path("o.json"))
    assert ("--contracts-progress" not in command, "-n" not in command) == (True, True)


def test_parallel_without_xdist_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """-n without pytest-xdist installed says how to install it."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "xdist" else real(name))
    with pytest.raises(VerifyError, match=r"-n needs pytest-xdist.*pip install -e '\.\[test\]'"):
        pytest_command(VerifyOptions(workers="2"), "reference", ROOT, Path("o.json"))


def test_worker_count_and_prefixes() -> None:
    """Workers read as a number (auto is -1); row prefixes split on commas and drop blanks."""
    assert (0, 3, -1) == (worker_count(None), worker_count("3"), worker_count("auto"))
    assert ["S03", "T.grad"] == split_prefixes(["S03, T.grad", ""])


def test_dotted_paths_resolve_from_the_current_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The current directory joins sys.path, so `--impl mypkg.engine:Cls` finds the user's package."""
    package = tmp_path / "userpkg_for_verify"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from contracts.engines.reference import ReferenceEngine\n\n\n"
        "class Mine(ReferenceEngine):\n    name = 'mine'\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "userpkg_for_verify", raising=False)
    assert "mine" == resolve_engine("userpkg_for_verify:Mine").name
