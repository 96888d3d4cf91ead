"""Mutant keys survive an edit elsewhere: mutmut's mutants by function and change, spec mutants by row
and change, statement mutants by function and change; the reviewed entry keeps matching its mutant."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tools.mutation.gate import judge
from tools.mutation.mutants import Mutant, blind_spots, package_mutants
from tools.spec_mutation.operators import row_mutants
from tools.spec_mutation.statements import module_mutants

BEFORE = '''LIMIT = 3


def total(a, b):
    """Their sum."""
    return a + b


class Box:
    def size(self, items):
        return len(items) + 1
'''
# an edit above the mutated line (a new first statement with mutants of its own), a comment and a
# reformatted line elsewhere
AFTER = '''LIMIT = 3


def total(a, b):
    """Their sum."""
    if a is None:
        raise TypeError("a")
    # the sum
    return a   +   b


class Box:
    def size(self, items):
        return len(items) + 1
'''


def mutants_of(tmp_path: Path, text: str, name: str = "m.py") -> list[Mutant]:
    (tmp_path / "src" / "pkg").mkdir(parents=True, exist_ok=True)
    (tmp_path / "src" / "pkg" / name).write_text(text, encoding="utf-8")
    return package_mutants([Path("src/pkg") / name], tmp_path, workers=1)


def test_an_edit_above_the_mutated_line_keeps_the_key_and_the_listed_entry_matches(tmp_path: Path) -> None:
    """`return a + b` -> `a - b` is keyed by its function and change before and after an edit above
    it, though mutmut's positional name moved; the listed entry still excuses that mutant, and only
    it (the gate judges the others as they are)."""
    before = {m.key: m for m in mutants_of(tmp_path, BEFORE)}
    after = {m.key: m for m in mutants_of(tmp_path, AFTER)}
    key = ("pkg.m.total", "- return a + b\n+ return a - b")
    assert "pkg.m.x_total__mutmut_1" == before[key].name
    assert before[key].name != after[key].name  # mutmut renumbered it
    assert set(before) < set(after)  # every old key still names a mutant
    verdicts = {k: "killed" for k in after} | {key: "survived"}
    assert [] == judge(verdicts, after, {key: "a + b equals a - b here"}, threshold=0.0).problems
    moved = after[key].name
    assert moved.startswith("pkg.m.x_total__mutmut_")
    assert moved != "pkg.m.x_total__mutmut_1"


def test_the_source_hash_follows_the_function_and_its_module_constants_not_formatting(tmp_path: Path) -> None:
    """Comments and formatting leave a function's source hash alone; its own code, a module constant
    or its class's attributes change it; another function's edit does not."""

    def hashes(text: str) -> dict[str, str]:
        return {m.function: m.source_hash for m in mutants_of(tmp_path, text)}

    base = hashes(BEFORE)
    assert base == hashes(BEFORE.replace("return a + b", "return a  +  b  # sum"))
    assert base["pkg.m.total"] != hashes(BEFORE.replace("LIMIT = 3", "LIMIT = 4"))["pkg.m.total"]
    edited = hashes(BEFORE.replace("return a + b", "return b + a"))
    assert base["pkg.m.total"] != edited["pkg.m.total"]
    assert base["pkg.m.Box.size"] == edited["pkg.m.Box.size"]
    with_attribute = hashes(BEFORE.replace("class Box:\n", "class Box:\n    unit = 2\n"))
    assert base["pkg.m.Box.size"] != with_attribute["pkg.m.Box.size"]


def test_a_change_twice_in_one_function_says_which_occurrence(tmp_path: Path) -> None:
    """Two identical lines mutated alike give two mutants: the second's change ends in [2]."""
    found = mutants_of(tmp_path, "def f(a):\n    a = a + 1\n    a = a + 1\n    return a\n")
    changes = [m.change for m in found if m.change.startswith("- a = a + 1\n+ a = a - 1")]
    assert ["- a = a + 1\n+ a = a - 1", "- a = a + 1\n+ a = a - 1 [2]"] == changes
    assert len(found) == len({m.key for m in found})


def test_a_decorated_function_with_logic_is_a_blind_spot(tmp_path: Path) -> None:
    """mutmut never mutates a decorated function: one that does more than delegate is named; static
    and class methods, and a decorated one-line delegation, are not."""
    path = tmp_path / "d.py"
    path.write_text(
        "import functools\n\n\nclass A:\n    @property\n    def name(self):\n        return self.x\n\n"
        "    @staticmethod\n    def s(x):\n        return x + 1\n\n"
        "    @functools.cache\n    def heavy(self, x):\n        y = x * 2\n        return y\n",
        encoding="utf-8",
    )
    assert [f"{path}:14 heavy"] == blind_spots([path])


ROW: dict[str, Any] = {
    "id": "X.formula.f",
    "kind": "formula",
    "symbols": ["a", "b"],
    "expr": "a * b",
    "examples": [{"inputs": {"a": 2, "b": 3}, "value": 6}, {"inputs": {"a": 1, "b": 1}, "value": 1}],
}


def test_a_spec_mutant_is_keyed_by_its_row_and_what_it_changes() -> None:
    """A spec mutant's change names the field, the value before and after; an example added before
    another keeps the other's key only where the path holds (its index is part of the path)."""
    changes = [m.change for m in row_mutants(ROW, {})]
    assert 'expr: "a * b" -> "a + b"' in changes
    assert "examples.0.value: 6 -> 7" in changes
    assert "examples.1.value: 1 -> 0" in changes
    edited = {**ROW, "expr": "b * a"}  # another field edited: the examples' keys stay
    assert {c for c in changes if c.startswith("examples")} == {
        m.change for m in row_mutants(edited, {}) if m.change.startswith("examples")
    }


GUARDS = """def f(x, y):
    if x < 0:
        raise ValueError("x")
    if y < 0:
        raise ValueError("y")
    return x + y
"""


def test_a_statement_mutant_is_keyed_by_its_function_and_what_it_changes(tmp_path: Path) -> None:
    """Deleting `if y < 0:` keeps its key when a guard is added above it (its positional id moves)."""
    path = tmp_path / "g.py"
    path.write_text(GUARDS, encoding="utf-8")
    before = {(m.function, m.change): m.mutant_id() for m in module_mutants(path, "pkg.g")}
    path.write_text(
        GUARDS.replace("    if x < 0:", "    if x is None:\n        raise TypeError\n    if x < 0:")
    )
    after = {(m.function, m.change): m.mutant_id() for m in module_mutants(path, "pkg.g")}
    key = ("pkg.g.f", "delete `if y < 0:`")
    assert key in before
    assert key in after
    assert before[key] != after[key]
    assert {("pkg.g.f", "swap `if x < 0:` and `if y < 0:`")} <= set(before) & set(after)


@pytest.mark.parametrize("name", ["__init__.py", "leaf.py"])
def test_a_mutant_names_its_module_as_mutmut_does(tmp_path: Path, name: str) -> None:
    """A package's __init__ is the package; a module file is the package and the module."""
    (found,) = mutants_of(tmp_path, "def f(a):\n    return -a\n", name)
    module = "pkg" if name == "__init__.py" else "pkg.leaf"
    assert (f"{module}.f", f"{module}.x_f__mutmut_1") == (found.function, found.name)


def test_a_hook_wrapper_that_hands_its_result_on_delegates(tmp_path: Path) -> None:
    """A generator-shaped wrapper (`report = yield` then `return plain(report)`) delegates; one that also
    computes before yielding, or returns computed logic, is a blind spot."""
    path = tmp_path / "w.py"
    path.write_text(
        "import pytest\n\n\n@pytest.hookimpl(wrapper=True)\ndef thin(item):\n    report = yield\n"
        "    return plain(report, item)\n\n\n@pytest.hookimpl(wrapper=True)\ndef thick(item):\n"
        "    item.n += 1\n    report = yield\n    return plain(report, item)\n\n\n"
        "@pytest.hookimpl(wrapper=True)\ndef computes(item):\n    report = yield\n    return report.n + 1\n",
        encoding="utf-8",
    )
    assert [f"{path}:11 thick", f"{path}:18 computes"] == blind_spots([path])
