"""Build hook: the spec suite ships in the wheel as the package contracts.spec_suite.

The repository's tests/ and specs/ stay the source of truth (the repository's own test run and mutmut use
them as they are). When a wheel is built, `build_py` also writes, under contracts/spec_suite/:

* tests/: tests/conftest.py, tests/properties, tests/golden, tests/meta/broken_engines.py (the README's
  broken adapters) and every module of tests/ they import, found by following their imports (a module
  imported but missing fails the build, naming the importer), with `tests.` imports renamed
  `contracts.spec_suite.tests.`: the installed suite has no top-level `tests` package to collide with a
  user's own `tests` when it runs inside their pytest session;
* specs/: every file of specs/;
* pytest.ini: pyproject's [tool.pytest.ini_options], so pytest run in the suite's root (`contracts
  verify`, a repro command) uses the suite's settings, never an ini file found above site-packages.

Copy-at-build rather than moving the suite into src/: the suite keeps its `tests.` imports and its
place, so nothing changes for the repository's tests, mutmut's copy of tests/ and the branches merged
beside this one. An editable install writes nothing (it runs the clone's own suite).
"""

from __future__ import annotations

import ast
import re
import shlex
import shutil
import tomllib
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SUITE_PACKAGE = "contracts.spec_suite"  # contracts.packaged.SUITE_PACKAGE (setup.py cannot import contracts)
SUITE_ROOTS = ("tests/conftest.py", "tests/properties", "tests/golden", "tests/meta/broken_engines.py")
LINE_LISTS = ("markers", "filterwarnings")  # ini options given one entry per line
FROM_TESTS = re.compile(r"\bfrom(\s+)tests\b")


class SuiteBuildError(Exception):
    """The packaged suite cannot be built as it stands (the message names the file)."""


def module_file(repo: Path, parts: list[str]) -> Path | None:
    """The file of a dotted module under the repository (a module or a package), None if absent."""
    base = repo.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_suite_modules(repo: Path, path: Path) -> list[Path]:
    """The files of tests/ that one file imports (from-imports of `tests` modules and names that are
    modules themselves); SuiteBuildError for one that does not exist or a plain `import tests...`."""
    where = path.relative_to(repo).as_posix()
    package = list(path.relative_to(repo).parent.parts)
    found: list[Path] = []
    for node in ast.walk(ast.parse(path.read_bytes(), where)):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "tests" for a in node.names):
            raise SuiteBuildError(f"{where}:{node.lineno}: use `from tests... import`, not `import tests...`")
        if not isinstance(node, ast.ImportFrom):
            continue
        base = package[: len(package) - node.level + 1] if node.level else []  # a relative import's package
        parts = [*base, *(part for part in (node.module or "").split(".") if part)]
        if not parts or parts[0] != "tests":
            continue
        target = module_file(repo, parts)
        if target is None:
            raise SuiteBuildError(f"{where}:{node.lineno}: imports {'.'.join(parts)}, which is not in tests/")
        found.append(target)
        found += [f for a in node.names if (f := module_file(repo, [*parts, a.name])) is not None]
    return found


def suite_files(repo: Path, roots: tuple[str, ...] = SUITE_ROOTS) -> list[Path]:
    """Every file of the packaged tests/: the roots, what they import (transitively) and the
    __init__.py of each package on the way, sorted."""
    todo = [repo / root for root in roots if root.endswith(".py")]
    todo += [path for root in roots if (repo / root).is_dir() for path in (repo / root).rglob("*.py")]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        if not path.is_file():
            where = path.relative_to(repo).as_posix()
            raise SuiteBuildError(f"{where}: missing (a root of the suite, or a package's __init__.py)")
        seen.add(path)
        todo += imported_suite_modules(repo, path)
        todo += [d / "__init__.py" for d in path.parents if repo / "tests" in (d, *d.parents)]
    return sorted(seen)


def rewrite_imports(source: str, where: str, package: str = SUITE_PACKAGE) -> str:
    """`from tests...` becomes `from <package>.tests...` on the lines of absolute from-imports."""
    lines = source.splitlines(keepends=True)
    for node in ast.walk(ast.parse(source, where)):
        if not isinstance(node, ast.ImportFrom) or node.level:
            continue
        if (node.module or "").split(".")[0] == "tests":
            index = node.lineno - 1
            lines[index] = FROM_TESTS.sub(rf"from\g<1>{package}.tests", lines[index], count=1)
    return "".join(lines)


def ini_value(key: str, value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        if key in LINE_LISTS:
            return "".join(f"\n    {item}" for item in value)
        return shlex.join(str(item) for item in value)
    return str(value)


def pytest_ini(pyproject: Path) -> str:
    options = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    lines = ((key, ini_value(key, value)) for key, value in options.items())
    body = "".join(f"{key} ={'' if text.startswith(chr(10)) else ' '}{text}\n" for key, text in lines)
    return f"# Written by setup.py from pyproject.toml's [tool.pytest.ini_options].\n[pytest]\n{body}"


def write_suite(repo: Path, target: Path, package: str = SUITE_PACKAGE) -> None:
    """The packaged suite under target (contracts/spec_suite in the build directory)."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    docstring = '"""The spec suite and the specs, packaged from the repository\'s tests/ and specs/."""\n'
    (target / "__init__.py").write_text(docstring, encoding="utf-8")
    (target / "pytest.ini").write_text(pytest_ini(repo / "pyproject.toml"), encoding="utf-8")
    for path in suite_files(repo):
        where = path.relative_to(repo)
        (target / where).parent.mkdir(parents=True, exist_ok=True)
        source = rewrite_imports(path.read_text(encoding="utf-8"), str(where), package)
        (target / where).write_text(source, encoding="utf-8")
    shutil.copytree(repo / "specs", target / "specs", ignore=shutil.ignore_patterns("__pycache__"))


class BuildPy(build_py):  # type: ignore[misc]  # setuptools' commands are untyped
    """build_py, then the packaged suite beside the built package (not in an editable install)."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            write_suite(Path(__file__).resolve().parent, Path(self.build_lib, *SUITE_PACKAGE.split(".")))


if __name__ == "__main__":
    setup(cmdclass={"build_py": BuildPy})
