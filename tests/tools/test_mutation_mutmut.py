"""mutmut itself, on a tiny project: a whole run writes the cache, two shards merged write the same
cache, and a test's child process survives mutmut's stats pass."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tools.mutation.__main__ import main
from tools.mutation.cache import Layout, load

ROOT = Path(__file__).resolve().parents[2]
SOURCE = {
    "__init__.py": "",
    "arith.py": "def add(a, b):\n    return a + b\n\n\ndef half(x):\n    return x / 2\n",
    "logic.py": "class Box:\n    def size(self, items):\n        return len(items) + 1\n",
    "unused.py": "def never(x):\n    return x - 1\n",
}
# test_in_a_child calls add in a child process started in an empty directory: during mutmut's stats
# pass the child must not try to record its calls (tools.mutation.order), or the pass fails.
TESTS = """import os
import subprocess
import sys
import tempfile

from tiny.arith import add, half
from tiny.logic import Box


def test_add():
    assert 3 == add(1, 2)


def test_box():
    assert 3 == Box().size([1, 2])


def test_half_weakly():
    assert half(4) > 0


def test_in_a_child():
    code = "from tiny.arith import add; assert 3 == add(1, 2)"
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with tempfile.TemporaryDirectory() as empty:
        subprocess.run([sys.executable, "-c", code], cwd=empty, env=environment, check=True)
"""
PYPROJECT = """[tool.mutmut]
source_paths = ["src/tiny/"]
pytest_add_cli_args_test_selection = ["tests/"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "-p", "tools.mutation.order"]
"""


def tiny(root: Path) -> Layout:
    for name, text in SOURCE.items():
        (root / "src" / "tiny").mkdir(parents=True, exist_ok=True)
        (root / "src" / "tiny" / name).write_text(text, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_tiny.py").write_text(TESTS, encoding="utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return Layout(root, "src/tiny", (), ("tests",), (), (), "cache.json", "equivalents.toml")


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="runs mutmut itself; pointless per mutant")
def test_two_shards_merged_write_the_cache_of_one_whole_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`update --all` runs every mutant (killed, survived and untested ones occur); `shard 1/2`,
    `shard 2/2` and `merge` in another copy write a byte-equal cache, and the gate says the same."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # mutmut's pytest loads tools.mutation.order
    monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
    whole = tiny(tmp_path / "whole")
    assert 1 == main(["update", "--all", "--max-children", "1"], whole)
    out = capsys.readouterr().out
    verdict = out.splitlines()[-1]
    relayed = [line for line in out.splitlines() if line.startswith("mutmut: ")]
    assert "\r" not in out  # mutmut's spinner frames, one line per phase
    assert 1 == sum("Running stats" in line for line in relayed)
    statuses = {
        s for entry in load(whole.root / "cache.json").functions.values() for s in entry.not_killed.values()
    }
    assert {"survived", "no tests"} == statuses
    assert 3 == sum(
        entry.mutants - len(entry.not_killed) for entry in load(whole.root / "cache.json").functions.values()
    )
    sharded = tiny(tmp_path / "sharded")
    parts = [sharded.root / f"part{index}.json" for index in (1, 2)]
    for index, part in zip((1, 2), parts):
        assert 0 == main(["shard", f"{index}/2", "--max-children", "1", "--out", str(part)], sharded)
    assert all(load(part).functions for part in parts)
    capsys.readouterr()
    assert 1 == main(["merge", *map(str, parts)], sharded)
    assert verdict == capsys.readouterr().out.splitlines()[-1] == "mutation gate: failed"
    assert (whole.root / "cache.json").read_text() == (sharded.root / "cache.json").read_text()
    shutil.rmtree(tmp_path)
