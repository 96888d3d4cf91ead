"""CI check of the built artifact (tox -e wheel): against the wheel tox installed (no torch), from an
empty system temporary directory (tox's own temporary directory is inside the repository's .tox, and a
pytest run there would take the repository's pyproject.toml as its ini file).

1. `contracts verify --quick` on the reference must exit 0 (the packaged suite, found without --suite);
2. the pytest plugin route on a few rows, in a session whose own conftest registers --impl (the suite
   must not clash with it) and whose own test, in its own package named `tests`, reads it;
3. neither run may write into the installed suite (no __pycache__, no .hypothesis: it may be read-only);
4. the sdist (of the tracked files) builds, and the wheel built from it packages the same suite files
   as the installed wheel;
5. the wheel holds the product only: no development tooling (tools/: mutation testing, benchmarks) and
   none of the project's own tests (tests/).

Usage: python check_wheel.py REPOSITORY (the sdist is built from it; nothing else is read from it).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

SUITE = "contracts/spec_suite/"
FORBIDDEN = ("tools", "tests", "benchmarks")  # top-level directories that must not be installed
PLUGIN_ROWS = "S03.grad.mul or S03.grad.add or mine"
USER_CONFTEST = 'def pytest_addoption(parser):\n    parser.addoption("--impl", default="theirs")\n'
USER_TEST = 'def test_mine(pytestconfig):\n    assert "theirs" == pytestconfig.getoption("--impl")\n'


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*")}


# The runs must show what they write: a PYTHONDONTWRITEBYTECODE from the caller's shell would hide it.
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run(step: str, command: list[str]) -> None:
    started = time.monotonic()
    code = subprocess.run(command, check=False, env=ENVIRONMENT).returncode
    print(f"check_wheel: {step}: exit {code} in {time.monotonic() - started:.1f}s", flush=True)
    if code != 0:
        sys.exit(f"check_wheel: {step} failed: {' '.join(command)}")


def tracked_copy(repository: Path, place: Path) -> Path:
    """The repository's tracked files (as in the working tree): a build there cannot pick up what a
    clean clone lacks, e.g. through a stale src/*.egg-info/SOURCES.txt, which setuptools' sdist reuses."""
    listed = subprocess.run(["git", "-C", str(repository), "ls-files", "-z"], capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (repository / name).is_file():
            (place / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(repository / name, place / name)
    return place


def installed_suite() -> set[str]:
    files = importlib.metadata.files("contracts") or []
    return {str(f) for f in files if str(f).startswith(SUITE) and "__pycache__" not in str(f)}


def main(repository: Path, here: Path) -> None:
    import contracts  # the installed wheel, not the repository's src/

    package = Path(contracts.__file__).resolve().parent
    if package.is_relative_to((repository / "src").resolve()):
        sys.exit(f"check_wheel: contracts comes from {package}, not from the installed wheel")
    suite = package / "spec_suite"
    before = snapshot(suite)
    run("contracts verify --quick (reference)", ["contracts", "verify", "--quick", "-q"])
    (here / "conftest.py").write_text(USER_CONFTEST, encoding="utf-8")
    (here / "tests").mkdir()
    (here / "tests" / "__init__.py").write_text("", encoding="utf-8")
    (here / "tests" / "test_user.py").write_text(USER_TEST, encoding="utf-8")
    plugin = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", "--pyargs"]
    plugin += ["contracts.spec_suite", "--contracts-impl=reference", "--hypothesis-profile=ci"]
    run("pytest plugin route", [*plugin, "-k", PLUGIN_ROWS])
    changed = sorted(set(before.items()) ^ set(snapshot(suite).items()))
    if changed:
        sys.exit(f"check_wheel: the runs wrote into the installed suite: {sorted({p for p, _ in changed})}")
    with tempfile.TemporaryDirectory() as out:
        source = tracked_copy(repository, Path(out) / "source")
        build = [sys.executable, "-m", "build", "-o", str(Path(out) / "dist"), str(source)]
        run("python -m build (sdist, then a wheel from it)", build)
        (wheel,) = (Path(out) / "dist").glob("*.whl")
        names = zipfile.ZipFile(wheel).namelist()
    from_sdist = {name for name in names if name.startswith(SUITE) and not name.endswith("/")}
    differs = sorted(from_sdist ^ installed_suite())
    if differs:
        sys.exit(f"check_wheel: the wheel built from the sdist packages another suite: {differs}")
    tooling = sorted(name for name in names if name.split("/")[0] in FORBIDDEN or "mutation" in name)
    if tooling:
        sys.exit(f"check_wheel: the wheel carries development tooling or project tests: {tooling}")
    print(f"check_wheel: OK ({len(from_sdist)} suite files, no writes into the installed suite)")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="check-wheel-") as work:
        os.chdir(work)
        main(Path(sys.argv[1]).resolve(), Path(work))
