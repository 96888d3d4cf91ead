"""The suite in the package: where the specs are read from, and the pytest plugin that runs the suite
inside another project's session (the built wheel itself is tested by tox -e wheel: .ci/check_wheel.py)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

import pytest_contracts
from contracts.spec import SpecError, spec_dir
from contracts.spec_suite import plugin
from tests.common.paths import ROOT

HERE = Path(__file__).resolve().parent


def write(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_spec_dir_is_the_packages_own_unless_configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The specs are the package contracts.specs (specs/ in a clone, contracts/specs/ in the wheel), read
    where that package was imported from; CONTRACTS_SPECS wins."""
    monkeypatch.delenv("CONTRACTS_SPECS", raising=False)
    specs = importlib.import_module("contracts.specs")  # by name: mypy does not follow the mapping
    assert Path(str(specs.__file__)).resolve().parent == spec_dir()
    assert (spec_dir() / "schema.json").is_file()
    monkeypatch.setenv("CONTRACTS_SPECS", str(tmp_path / "mine"))
    assert tmp_path / "mine" == spec_dir()


def test_an_install_without_its_specs_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """An install whose contracts.specs cannot be found is a one-line SpecError naming the package."""
    real = importlib.util.find_spec
    monkeypatch.delenv("CONTRACTS_SPECS", raising=False)
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "contracts.specs" else real(name)
    )
    with pytest.raises(SpecError, match=r"^this install of contracts has no contracts\.specs: reinstall it$"):
        spec_dir()


# mutmut's copy of the project holds neither specs/ nor pyproject's [tool.setuptools]; no mutant reaches them
@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="packaging: no mutant reaches it")
def test_the_wheel_lists_every_package_of_the_source() -> None:
    """pyproject's package list names every package of src/ and every directory mapped into the package
    (specs/, tests/properties/, tests/golden/), each a directory with an __init__.py: a package left off
    the list would be missing from the wheel."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    mapped = {name: ROOT / place for name, place in setuptools["package-dir"].items() if name}
    found = {
        ".".join(init.parent.relative_to(ROOT / "src").parts) for init in (ROOT / "src").rglob("__init__.py")
    }
    assert [] == [name for name, place in mapped.items() if not (place / "__init__.py").is_file()]
    assert sorted(found | set(mapped)) == sorted(setuptools["packages"])


def test_the_entry_point_plugin_is_loaded_with_the_suites_options(pytestconfig: pytest.Config) -> None:
    """pytest loads pytest_contracts (entry point name `contracts`) in every session; the suite's
    options carry its prefix (a host's own --impl stays the host's) and every session knows them (a
    mutation run sets two of them, so their values here are not asserted)."""
    assert pytest_contracts is pytestconfig.pluginmanager.get_plugin("contracts")
    names = (
        "--contracts-impl",
        "--contracts-deep-graph-depth",
        "--contracts-statistical-samples",
        "--contracts-test-timeout",
    )
    for name in names:
        pytestconfig.getoption(name)  # ValueError for an option no plugin registered
    assert names == (
        pytest_contracts.IMPL,
        pytest_contracts.DEPTH,
        pytest_contracts.SAMPLES,
        pytest_contracts.TIMEOUT,
    )


class StubConfig:
    """The part of pytest.Config the plugin's configure hook reads."""

    def __init__(self, impl: str | None) -> None:
        self.impl = impl
        self.option = SimpleNamespace(pyargs=False)

    def getoption(self, name: str) -> str | None:
        assert pytest_contracts.IMPL == name
        return self.impl


def configure(impl: str | None) -> None:
    config: pytest.Config = StubConfig(impl)  # type: ignore[assignment]
    pytest_contracts.pytest_configure(config)


def test_a_session_that_does_not_ask_is_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --contracts-impl the plugin keeps bytecode writing and activates nothing."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(plugin, "activate", lambda config: pytest.fail("activated"))
    configure(None)
    assert not sys.dont_write_bytecode


def test_asking_for_the_suite_activates_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """--contracts-impl stops bytecode writes (the suite may sit in a read-only site-packages) and
    imports the suite's session, whose profiles must exist before hypothesis reads --hypothesis-profile."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.delitem(sys.modules, "contracts.spec_suite.session", raising=False)
    configure("reference")
    assert sys.dont_write_bytecode
    assert "contracts.spec_suite.session" in sys.modules


def junit_outcomes(path: Path) -> dict[str, str]:
    """test name -> passed / failed / error / skipped, from a JUnit XML file."""
    outcomes: dict[str, str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        found = [kind for kind in ("failure", "error", "skipped") if case.find(kind) is not None]
        outcomes[case.attrib["name"]] = found[0] if found else "passed"
    return outcomes


BROKEN_MUL = """from contracts.engines.reference import ReferenceEngine


class WrongMul(ReferenceEngine):
    name = "wrong-mul"

    def scalar_vjp(self, op, inputs, constants=None):
        value, grads = super().scalar_vjp(op, inputs, constants)
        return (value, (grads[0] + 1.0, *grads[1:])) if op == "mul" else (value, grads)
"""


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="a child imports the installed package")
def test_the_suite_runs_as_a_guest_beside_a_host_with_its_own_impl(tmp_path: Path) -> None:
    """The suite runs inside a host session whose conftest registers --impl: no option clash, the host's
    test reads its own --impl, and the suite runs on the engine --contracts-impl names (a broken mul
    fails its row). (A host whose tests are a package named `tests`: .ci/check_wheel.py, on the wheel;
    in a clone the suite's own tests are that package.)"""
    host = tmp_path / "host"
    write(
        host / "conftest.py", 'def pytest_addoption(parser):\n    parser.addoption("--impl", default="h")\n'
    )
    write(
        host / "tests/test_host.py",
        'def test_host(pytestconfig):\n    assert "h" == pytestconfig.getoption("--impl")\n',
    )
    write(host / "broken.py", BROKEN_MUL)
    env = {**os.environ, "PYTHONPATH": str(host), "CONTRACTS_HYPOTHESIS_PROFILE": "ci"}
    outcomes = {}
    for engine in ("reference", "broken:WrongMul"):
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", "--pyargs"]
        command += ["contracts.spec_suite.golden.test_stage03_golden", f"--contracts-impl={engine}"]
        command += ["-k", "S03.grad.mul or host", f"--junitxml={tmp_path / 'out.xml'}"]
        subprocess.run(command, cwd=host, env=env, capture_output=True, check=False)
        outcomes[engine] = junit_outcomes(tmp_path / "out.xml")
    mul = "test_gradient_example[S03.grad.mul[0]]"
    assert {"test_host": "passed", mul: "passed"} == outcomes["reference"]
    assert {"test_host": "passed", mul: "failure"} == outcomes["broken:WrongMul"]


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="a child imports the installed package")
def test_the_suite_named_as_a_package_collects_its_properties_and_its_goldens(tmp_path: Path) -> None:
    """`pytest --pyargs contracts.spec_suite` (the plugin route the docs give) collects the property
    tests and the golden tests, wherever the install keeps them (a clone keeps them in tests/)."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "--pyargs"]
    command += ["contracts.spec_suite", "--contracts-impl=reference", "-k", "S03.grad.mul"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    files = {line.split("::")[0].rpartition("/")[2] for line in done.stdout.splitlines() if "::" in line}
    one_of_each = {"test_stage03_autodiff.py", "test_stage03_golden.py"}  # properties/, golden/
    assert (0, one_of_each) == (done.returncode, files & one_of_each)
