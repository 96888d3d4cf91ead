"""The staleness measurement's edits change exactly what they name, in a copy of the project."""

from __future__ import annotations

from pathlib import Path

from tools.mutation.cache import Layout, meaning_hash
from tools.mutation.mutants import source_hashes
from tools.mutation.staleness import add_comment, change_example, change_function, copy_project

SPEC = '[[rows]]\nid = "A.one"\nexamples = [{ where = { K = 2 }, value = 3 }]\n\n[[rows]]\nid = "A.two"\n'
SPEC += "examples = [{ where = { K = 2 }, value = 7 }]\n"
SOURCE = (
    "def first(x):\n    return x\n\n\nclass Box:\n    def size(self):\n        if True:\n"
    "            return 1\n        return 2\n"
)


def project(root: Path) -> Layout:
    (root / "src" / "tiny").mkdir(parents=True)
    (root / "src" / "tiny" / "logic.py").write_text(SOURCE, encoding="utf-8")
    (root / "specs").mkdir()
    (root / "specs" / "a.toml").write_text(SPEC, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tools").mkdir()
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    return Layout(root, "src/tiny", (), ("tests",), ("specs",))


def test_the_edits_change_the_named_row_and_function_only(tmp_path: Path) -> None:
    """A comment keeps the spec's meaning; the example edit raises the named row's value by one; the
    function edit changes Box.size's source hash and no other function's; the checkout is untouched."""
    source = project(tmp_path / "checkout")
    layout = copy_project(source, tmp_path / "copy")
    spec = layout.path("specs/a.toml")
    before = meaning_hash(spec)
    add_comment(layout)
    assert before == meaning_hash(spec)
    change_example(layout, "A.two")
    assert SPEC.replace("value = 7", "value = 8") + "# a comment: says nothing\n" == spec.read_text()
    hashes = source_hashes(SOURCE)
    change_function(layout, "tiny.logic.Box.size")
    changed = source_hashes(layout.path("src/tiny/logic.py").read_text())
    assert {"xǁBoxǁsize"} == {name for name in hashes if hashes[name] != changed[name]}
    assert SOURCE == source.path("src/tiny/logic.py").read_text()
