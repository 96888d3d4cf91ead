"""The suite in the package: setup.py's build hook, where an install finds its packaged suite, and the
pytest plugin's option handling (the installed wheel itself is tested by tox -e wheel: .ci/check_wheel.py)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import pytest_contracts
from contracts import packaged
from contracts import pytest_plugin as plugin
from contracts.spec import loader, spec_dir

ROOT = Path(__file__).resolve().parents[2]
IMPORTED = re.compile(r"^\s*from guest\.(tests[\w.]*) import", re.MULTILINE)


def load_setup() -> ModuleType:
    """setup.py as a module (its setup() call runs only as __main__, as the build backend runs it)."""
    spec = importlib.util.spec_from_file_location("contracts_setup", ROOT / "setup.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SETUP = load_setup()


FAKE_PACKAGES = ("fake_suite_pkg", "zipped_suite_pkg", "fake_guest_suite")


@pytest.fixture
def forget_fake_packages() -> Iterator[None]:
    """Packages a test imports from its tmp_path are forgotten afterwards (pytest may run twice in one
    process, as mutmut does, and the next tmp_path differs)."""
    yield
    for name in [name for name in sys.modules if name.split(".")[0] in FAKE_PACKAGES]:
        del sys.modules[name]
    importlib.invalidate_caches()


def write(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# ---------------------------------------------------------------- the build hook (setup.py)


def test_the_hook_names_the_package_the_runtime_looks_for() -> None:
    """setup.py writes the suite under the package name contracts.packaged looks up."""
    assert packaged.SUITE_PACKAGE == SETUP.SUITE_PACKAGE


def test_suite_files_follow_the_imports(tmp_path: Path) -> None:
    """The packaged files: the roots, the tests/ modules they import (absolute, relative, a module
    named in `from tests import x`, transitively) and each package's __init__.py; nothing else."""
    for init in ("tests/__init__.py", "tests/properties/__init__.py", "tests/golden/__init__.py"):
        write(tmp_path / init)
    write(tmp_path / "tests/conftest.py", "from tests.spec_rows import row\n")
    write(tmp_path / "tests/spec_rows.py", "from tests import strategies as s\nrow = 1\n")
    write(tmp_path / "tests/strategies.py", "import math\n")
    write(tmp_path / "tests/properties/test_x.py", "from ..cases import c\nfrom contracts import Value\n")
    write(tmp_path / "tests/cases.py")
    write(tmp_path / "tests/unused.py")
    write(tmp_path / "tests/meta/test_meta.py")
    roots = ("tests/conftest.py", "tests/properties", "tests/golden")
    expected = [
        "tests/__init__.py",
        "tests/cases.py",
        "tests/conftest.py",
        "tests/golden/__init__.py",
        "tests/properties/__init__.py",
        "tests/properties/test_x.py",
        "tests/spec_rows.py",
        "tests/strategies.py",
    ]
    assert expected == [p.relative_to(tmp_path).as_posix() for p in SETUP.suite_files(tmp_path, roots)]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"tests/properties/test_x.py": "from tests.nope import x\n"},
            "test_x.py:1: imports tests.nope, which",
        ),
        (
            {"tests/properties/test_x.py": "\nimport tests.spec_rows\n"},
            "test_x.py:2: use `from tests... import`",
        ),
        ({"tests/properties/other.py": ""}, "tests/conftest.py: missing"),
    ],
    ids=["missing-module", "plain-import", "missing-root"],
)
def test_an_incomplete_suite_fails_the_build(tmp_path: Path, files: dict[str, str], message: str) -> None:
    """A module the suite imports but tests/ lacks, a plain `import tests...` (which the renaming could
    not follow) or a missing root fails the build, naming the file."""
    write(tmp_path / "tests/__init__.py")
    write(tmp_path / "tests/properties/__init__.py")
    for name, text in files.items():
        write(tmp_path / name, text)
    with pytest.raises(SETUP.SuiteBuildError, match=message):
        SETUP.suite_files(tmp_path, ("tests/conftest.py", "tests/properties"))


def test_imports_of_tests_are_renamed() -> None:
    """Only absolute from-imports of `tests` change; strings, comments and other modules stay."""
    source = (
        "from tests import strategies as s\n"
        "from  tests.spec_rows import (\n    row,\n)\n"
        "from testsuite import x  # from tests import y\n"
        'TEXT = "from tests.a import b"\n'
        "from . import sibling\n"
    )
    expected = (
        "from pkg.tests import strategies as s\n"
        "from  pkg.tests.spec_rows import (\n    row,\n)\n"
        "from testsuite import x  # from tests import y\n"
        'TEXT = "from tests.a import b"\n'
        "from . import sibling\n"
    )
    assert expected == SETUP.rewrite_imports(source, "x.py", "pkg")


def test_pytest_ini_repeats_the_pyproject_settings(tmp_path: Path) -> None:
    """The packaged pytest.ini holds pyproject's [tool.pytest.ini_options], in ini syntax."""
    write(
        tmp_path / "pyproject.toml",
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = ["-p", "no:x", "-k", "a b"]\n'
        'markers = ["spec(*ids): rows", "slow: slow"]\nxfail_strict = true\nstrict = false\n'
        'minversion = "8"\n',
    )
    expected = (
        "# Written by setup.py from pyproject.toml's [tool.pytest.ini_options].\n[pytest]\n"
        "testpaths = tests\naddopts = -p no:x -k 'a b'\nmarkers =\n    spec(*ids): rows\n    slow: slow\n"
        "xfail_strict = true\nstrict = false\nminversion = 8\n"
    )
    assert expected == SETUP.pytest_ini(tmp_path / "pyproject.toml")


def test_written_suite_has_no_top_level_tests_imports(tmp_path: Path) -> None:
    """The packaged copy of this repository's suite imports `tests` only under the package's name, and
    carries the specs, a pytest.ini and the package's __init__.py."""
    SETUP.write_suite(ROOT, tmp_path / "suite", "guest")
    sources = {p: p.read_text(encoding="utf-8") for p in (tmp_path / "suite").rglob("*.py")}
    left = [str(p) for p, text in sources.items() if "\nfrom tests" in text or text.startswith("from tests")]
    assert [] == left
    assert "from guest.tests.spec_rows import" in sources[tmp_path / "suite/tests/conftest.py"]
    assert sorted(p.name for p in (ROOT / "specs").iterdir()) == sorted(
        p.name for p in (tmp_path / "suite/specs").iterdir()
    )
    assert ((tmp_path / "suite/pytest.ini").is_file(), (tmp_path / "suite/__init__.py").is_file()) == (
        True,
        True,
    )


def test_written_suite_imports_only_what_it_carries(tmp_path: Path) -> None:
    """Every `guest.tests...` module the packaged copy imports is a file of the copy, and every test
    file of tests/properties and tests/golden is there."""
    copy = tmp_path / "guest"
    SETUP.write_suite(ROOT, copy, "guest")
    written = {p.relative_to(copy).as_posix() for p in copy.rglob("*.py")}
    imported: set[str] = set()
    for path in copy.rglob("*.py"):
        imported |= set(IMPORTED.findall(path.read_text(encoding="utf-8")))
    as_files = {
        name: (name.replace(".", "/") + ".py", name.replace(".", "/") + "/__init__.py") for name in imported
    }
    absent = sorted(name for name, files in as_files.items() if not written & set(files))
    assert ([], True) == (absent, len(imported) > 10)
    tests = {
        p.relative_to(ROOT).as_posix()
        for d in ("properties", "golden")
        for p in (ROOT / "tests" / d).glob("*.py")
    }
    assert set() == tests - written


# ---------------------------------------------------------------- finding the packaged suite


@pytest.mark.usefixtures("forget_fake_packages")
def test_packaged_suite_is_found_through_importlib_resources(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An installed package's directory is the suite root; a missing package, or one inside a zip
    (where pytest cannot run), is no packaged suite."""
    write(tmp_path / "site/fake_suite_pkg/__init__.py")
    with zipfile.ZipFile(tmp_path / "zipped.zip", "w") as archive:
        archive.writestr("zipped_suite_pkg/__init__.py", "")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.syspath_prepend(str(tmp_path / "zipped.zip"))
    assert (tmp_path / "site/fake_suite_pkg", None, None) == (
        packaged.packaged_suite("fake_suite_pkg"),
        packaged.packaged_suite("zipped_suite_pkg"),
        packaged.packaged_suite("contracts.no_such_suite"),
    )


def test_spec_dir_prefers_the_packaged_specs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A wheel install reads the specs packaged with it; CONTRACTS_SPECS still wins."""
    monkeypatch.delenv("CONTRACTS_SPECS", raising=False)
    monkeypatch.setattr(loader, "packaged_suite", lambda: tmp_path)
    assert tmp_path / "specs" == spec_dir()
    monkeypatch.setenv("CONTRACTS_SPECS", str(tmp_path / "mine"))
    assert tmp_path / "mine" == spec_dir()


# ---------------------------------------------------------------- the pytest plugin


NOT_GIVEN = object()


class StubConfig:
    """The part of pytest.Config the plugin reads: rootdir, the registered options (value None: not
    given), ini lines added; getoption raises ValueError for an unregistered option without a default,
    as pytest's does."""

    def __init__(self, rootpath: Path, **options: Any) -> None:
        self.rootpath = rootpath
        self.options = options
        self.lines: list[tuple[str, str]] = []

    def getoption(self, name: str, default: Any = NOT_GIVEN) -> Any:
        if name not in self.options and default is NOT_GIVEN:
            raise ValueError(f"no option named {name!r}")
        return self.options.get(name, default)

    def addinivalue_line(self, name: str, line: str) -> None:
        self.lines.append((name, line))


def as_config(stub: StubConfig) -> pytest.Config:
    config: pytest.Config = stub  # type: ignore[assignment]
    return config


def test_the_entry_point_plugin_is_loaded_with_its_own_options(pytestconfig: pytest.Config) -> None:
    """pytest loads pytest_contracts (entry point name `contracts`) in this session too; its options
    have their own prefix and stay unset, and the suite's own --impl is the conftest's."""
    assert pytest_contracts is pytestconfig.pluginmanager.get_plugin("contracts")
    names = (
        "--contracts-impl",
        "--contracts-deep-graph-depth",
        "--contracts-statistical-samples",
        "--contracts-test-timeout",
    )
    assert (None, None, None, None) == tuple(pytestconfig.getoption(name) for name in names)
    assert names == (
        pytest_contracts.IMPL,
        pytest_contracts.DEPTH,
        pytest_contracts.SAMPLES,
        pytest_contracts.TIMEOUT,
    )


def test_a_session_that_does_not_ask_is_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --contracts-impl the plugin adds no marker, keeps bytecode writing, imports nothing."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(plugin, "activate", lambda config: pytest.fail("activated"))
    stub = StubConfig(ROOT, **{"--contracts-impl": None})
    pytest_contracts.pytest_configure(as_config(stub))
    assert ([], False) == (stub.lines, sys.dont_write_bytecode)


@pytest.mark.usefixtures("forget_fake_packages")
def test_asking_for_the_suite_activates_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--contracts-impl registers the spec marker, stops bytecode writes and imports the packaged
    suite's conftest (its hypothesis profiles) before hypothesis reads --hypothesis-profile."""
    write(tmp_path / "fake_guest_suite/__init__.py")
    write(tmp_path / "fake_guest_suite/tests/__init__.py")
    write(tmp_path / "fake_guest_suite/tests/conftest.py", "IMPORTED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugin, "SUITE_PACKAGE", "fake_guest_suite")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    stub = StubConfig(ROOT, **{"--contracts-impl": "reference"})
    pytest_contracts.pytest_configure(as_config(stub))
    assert ([("markers", plugin.SPEC_MARKER)], True) == (stub.lines, sys.dont_write_bytecode)
    assert sys.modules["fake_guest_suite.tests.conftest"].IMPORTED
    monkeypatch.setattr(plugin, "SUITE_PACKAGE", "no_such_guest_suite")  # a clone: nothing to import
    plugin.activate(as_config(stub))
    assert 2 == len(stub.lines)


def test_the_suite_reads_its_own_options_at_home_and_the_plugins_as_a_guest(tmp_path: Path) -> None:
    """In its own session (rootdir = its root) --impl, else --contracts-impl; as a guest only the
    plugin's: a host's --impl belongs to the host."""
    home = StubConfig(
        tmp_path / "suite" / ".." / "suite", **{"--impl": "torch", "--contracts-impl": "micrograd"}
    )
    (tmp_path / "suite").mkdir()
    guest = StubConfig(
        tmp_path,
        **{
            "--impl": "theirs",
            "--contracts-deep-graph-depth": 7,
            "--contracts-statistical-samples": 1024,
            "--contracts-test-timeout": 9.5,
        },
    )
    plugin_only = StubConfig(tmp_path / "suite", **{"--contracts-impl": "micrograd"})
    suite = tmp_path / "suite"
    assert (False, True) == (plugin.hosted(as_config(home), suite), plugin.hosted(as_config(guest), suite))
    assert ("torch", "micrograd", None, 7, None, 1024, 9.5) == (
        plugin.suite_option(as_config(home), suite, "--impl"),
        plugin.suite_option(as_config(plugin_only), suite, "--impl"),
        plugin.suite_option(as_config(guest), suite, "--impl"),
        plugin.suite_option(as_config(guest), suite, "--deep-graph-depth"),
        plugin.suite_option(as_config(home), suite, "--deep-graph-depth"),
        plugin.suite_option(as_config(guest), suite, "--statistical-samples"),
        plugin.suite_option(as_config(guest), suite, "--test-timeout"),
    )


def test_an_unregistered_option_reads_as_not_given(tmp_path: Path) -> None:
    """With the plugin disabled (-p no:contracts) or the suite's own option unregistered (--noconftest),
    the suite's option reads as not given instead of failing."""
    plugin_disabled = StubConfig(tmp_path, **{"--impl": None})
    no_conftest = StubConfig(tmp_path, **{"--contracts-impl": "micrograd"})
    assert (None, "micrograd") == (
        plugin.suite_option(as_config(plugin_disabled), tmp_path, "--impl"),
        plugin.suite_option(as_config(no_conftest), tmp_path, "--impl"),
    )


def junit_outcomes(path: Path) -> dict[str, str]:
    """test name -> passed / failed / error / skipped, from a JUnit XML file."""
    outcomes: dict[str, str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        found = [kind for kind in ("failure", "error", "skipped") if case.find(kind) is not None]
        outcomes[case.attrib["name"]] = found[0] if found else "passed"
    return outcomes


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="a child imports the installed package")
def test_the_packaged_suite_runs_as_a_guest_beside_a_host_with_its_own_impl(tmp_path: Path) -> None:
    """A packaged copy of the suite (under another name) runs inside a host session whose conftest
    registers --impl and whose own `tests` package exists: no option clash, the host's test reads its
    own --impl, and the suite runs on the engine --contracts-impl names (a broken mul fails its row)."""
    SETUP.write_suite(ROOT, tmp_path / "site" / "guest_suite", "guest_suite")
    host = tmp_path / "host"
    write(
        host / "conftest.py", 'def pytest_addoption(parser):\n    parser.addoption("--impl", default="h")\n'
    )
    write(host / "tests/__init__.py")
    write(
        host / "tests/test_host.py",
        'def test_host(pytestconfig):\n    assert "h" == pytestconfig.getoption("--impl")\n',
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "CONTRACTS_HYPOTHESIS_PROFILE": "ci"}
    env["CONTRACTS_SPECS"] = str(ROOT / "specs")  # a clone has no contracts.spec_suite to read them from
    outcomes = {}
    for engine in ("reference", "guest_suite.tests.meta.broken_engines:WrongMulGradient"):
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", "--pyargs"]
        command += ["guest_suite.tests.golden.test_stage03_golden", f"--contracts-impl={engine}"]
        command += ["-k", "S03.grad.mul or host", f"--junitxml={tmp_path / 'out.xml'}"]
        subprocess.run(command, cwd=host, env=env, capture_output=True, check=False)
        outcomes[engine] = junit_outcomes(tmp_path / "out.xml")
    assert {"test_host": "passed", "test_gradient_example[S03.grad.mul[0]]": "passed"} == outcomes[
        "reference"
    ]
    assert {"test_host": "passed", "test_gradient_example[S03.grad.mul[0]]": "failure"} == outcomes[
        "guest_suite.tests.meta.broken_engines:WrongMulGradient"
    ]
