"""The committed cache: fresh verdicts are reused, exactly the stale ones run (a fake mutmut here), and
the gate judges cached and fresh verdicts together."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from tools.mutation.__main__ import main
from tools.mutation.cache import Layout, Outcome, dumps, load
from tools.mutation.mutants import Mutant

SOURCE = {
    "__init__.py": "",
    "arith.py": "def add(a, b):\n    return a + b\n\n\ndef half(x):\n    return x / 2\n",
    "logic.py": "class Box:\n    def size(self, items):\n        return len(items) + 1\n",
}
TESTS = {
    "helpers.py": "TWO = 2\n",
    "test_arith.py": "from tests.helpers import TWO\nfrom tiny.arith import add, half\n\n\ndef test_add():\n"
    "    assert 3 == add(1, TWO)\n\n\ndef test_half():\n    assert half(4) > 0\n",
    "test_logic.py": "from tiny.logic import Box\n\n\ndef test_size():\n    assert 3 == Box().size([1, 2])\n",
}


class FakeMutmut:
    """Runs nothing: a mutant survives when its change is in `survivors`, else it is killed; a
    function is covered by the test files that name it. Records what it was asked to run."""

    def __init__(
        self, root: Path, survivors: Sequence[str] = ("x * 2", "x / 3"), reads: bool = False
    ) -> None:
        self.root = root
        self.survivors = survivors
        self.reads = reads  # record the rows each test file names as the rows it reads
        self.runs: list[tuple[list[str], list[str] | None]] = []
        self.finish = True

    def __call__(self, mutants: Sequence[Mutant], selection: Sequence[str] | None) -> Outcome:
        if mutants:
            self.runs.append(
                (sorted(m.function for m in mutants), None if selection is None else list(selection))
            )
        tests = sorted(p.relative_to(self.root).as_posix() for p in (self.root / "tests").glob("test_*.py"))
        chosen = tests if selection is None else [t for t in tests if t in selection]
        covering: dict[str, set[str]] = {}
        statuses: dict[str, str] = {}
        for mutant in mutants:
            word = re.compile(rf"\b{mutant.function.rpartition('.')[2]}\b")
            files = {t for t in chosen if word.search((self.root / t).read_text())}
            covering[mutant.function] = files
            survived = any(s in mutant.change for s in self.survivors)
            statuses[mutant.name] = "no tests" if not files else "survived" if survived else "killed"
            if not self.finish:
                statuses[mutant.name] = "not checked"
        rows_read = {t: set(re.findall(r"R\.\w+(?::\w+)?", (self.root / t).read_text())) for t in chosen}
        return Outcome(statuses, covering, rows_read if self.reads else {})

    def functions_run(self) -> list[str]:
        return sorted({f for functions, _ in self.runs for f in functions})


def project(root: Path) -> Layout:
    for name, text in SOURCE.items():
        (root / "src" / "tiny").mkdir(parents=True, exist_ok=True)
        (root / "src" / "tiny" / name).write_text(text, encoding="utf-8")
    (root / "tests").mkdir()
    for name, text in {"__init__.py": "", **TESTS}.items():
        (root / "tests" / name).write_text(text, encoding="utf-8")
    (root / "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["src/tiny/"]\n', encoding="utf-8")
    entry = "[[mutant]]\nfunction = 'tiny.arith.half'\nchange = ['- return x / 2', '+ return x {}']\n"
    (root / "equivalents.toml").write_text(
        (entry + "reason = 'r'\n\n").format("* 2") + (entry + "reason = 'r'\n").format("/ 3")
    )
    return Layout(root, "src/tiny", (), ("tests",), (), (), "cache.json", "equivalents.toml")


@pytest.fixture
def recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Layout, FakeMutmut]:
    """A project whose cache an `update` has just written (every mutant run once)."""
    layout = project(tmp_path)
    fake = FakeMutmut(tmp_path)
    assert 0 == main(["update"], layout, fake)
    assert ["tiny.arith.add", "tiny.arith.half", "tiny.logic.Box.size"] == fake.functions_run()
    fake.runs.clear()
    capsys.readouterr()
    return layout, fake


def test_a_fresh_cache_reuses_every_verdict_and_runs_nothing(
    recorded: tuple[Layout, FakeMutmut], capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing changed: the gate runs no mutant and passes on the cached verdicts (the two listed
    survivors of half are equivalents)."""
    layout, fake = recorded
    assert 0 == main(["gate"], layout, fake)
    out = capsys.readouterr().out
    assert [] == fake.runs
    assert "mutation score 100.00%" in out
    assert "2 listed equivalent" in out
    assert out.endswith("mutation gate: passed\n")


def test_an_edited_function_reruns_its_mutants_against_its_own_tests(
    recorded: tuple[Layout, FakeMutmut],
) -> None:
    """An edit of add reruns add's mutants only, against the test file that covered it; a comment
    or a reformatted line elsewhere reruns nothing."""
    layout, fake = recorded
    arith = layout.root / "src/tiny/arith.py"
    arith.write_text(arith.read_text().replace("return x / 2", "return x  /  2  # half"))
    assert 0 == main(["gate"], layout, fake)
    assert [] == fake.runs
    arith.write_text(arith.read_text().replace("return a + b", "return b + a"))
    assert 0 == main(["gate"], layout, fake)
    assert [(["tiny.arith.add"], ["tests/test_arith.py"])] == fake.runs


def test_an_edited_test_or_helper_reruns_the_functions_its_file_covers(
    recorded: tuple[Layout, FakeMutmut],
) -> None:
    """test_logic.py edited: Box.size reruns against it (and half's two survivors are rechecked
    against it: they stay survivors, as it does not cover half); tests/helpers.py, which only
    test_arith.py imports, edited: add and half rerun against test_arith.py."""
    layout, fake = recorded
    (layout.root / "tests/test_logic.py").write_text(TESTS["test_logic.py"] + "\n\nX = 1\n")
    assert 0 == main(["update"], layout, fake)
    (layout.root / "tests/helpers.py").write_text("TWO = 1 + 1\n")
    assert 0 == main(["update"], layout, fake)
    half = ["tiny.arith.half", "tiny.arith.half"]
    assert [
        ([*half, "tiny.logic.Box.size", "tiny.logic.Box.size"], ["tests/test_logic.py"]),
        (["tiny.arith.add", *half], ["tests/test_arith.py"]),
    ] == fake.runs


def test_a_new_test_file_rechecks_only_the_survivors_and_a_kill_replaces_the_verdict(
    recorded: tuple[Layout, FakeMutmut], capsys: pytest.CaptureFixture[str]
) -> None:
    """A new test file: no killed verdict runs again; the two survivors of half run against the new
    file only. The one it kills is killed in the cache, so its listed entry now fails the gate; the
    other keeps its cached survival."""
    layout, fake = recorded
    (layout.root / "tests/test_half.py").write_text(
        "from tiny.arith import half\n\n\ndef test_h():\n    half\n"
    )
    fake.survivors = ("x * 2",)
    assert 1 == main(["update"], layout, fake)
    assert [(["tiny.arith.half", "tiny.arith.half"], ["tests/test_half.py"])] == fake.runs
    out = capsys.readouterr().out
    assert "FAIL: listed mutant is killed: tiny.arith.half: - return x / 2 | + return x / 3;" in out
    entry = load(layout.root / "cache.json").functions["tiny.arith.half"]
    assert {"- return x / 2\n+ return x * 2": "survived"} == entry.not_killed
    assert ("tests/test_arith.py", "tests/test_half.py") == entry.covered_by


def test_a_new_function_runs_against_its_modules_tests_and_those_naming_it(
    recorded: tuple[Layout, FakeMutmut],
) -> None:
    """A function the cache has never seen runs against the files covering its module's other
    functions and the test files that name it (here one written before the function); the rest stays
    cached."""
    layout, fake = recorded
    (layout.root / "tests/test_neg.py").write_text(
        "from tiny import arith\n\n\ndef test_neg():\n    arith.neg\n"
    )
    assert 0 == main(["update"], layout, fake)
    fake.runs.clear()  # half's survivors were rechecked against the new file
    arith = layout.root / "src/tiny/arith.py"
    arith.write_text(arith.read_text() + "\n\ndef neg(x):\n    return -x\n")
    assert 0 == main(["update"], layout, fake)
    assert [(["tiny.arith.neg"], ["tests/test_arith.py", "tests/test_neg.py"])] == fake.runs


def test_more_stale_mutants_than_the_limit_fail_naming_the_refresh_command(
    recorded: tuple[Layout, FakeMutmut], capsys: pytest.CaptureFixture[str]
) -> None:
    """Over the limit the gate runs nothing and fails, saying which command refreshes the cache."""
    layout, fake = recorded
    (layout.root / "tests/test_arith.py").write_text(TESTS["test_arith.py"] + "\n")
    assert 1 == main(["gate", "--limit", "2"], layout, fake)
    out = capsys.readouterr().out
    assert [] == fake.runs
    assert "FAIL: 3 mutants need a run, more than the limit of 2: refresh the cache with " in out
    assert "`python -m tools.mutation update`" in out
    assert out.endswith("mutation gate: failed\n")


def test_only_judges_the_named_functions_and_its_refresh_command_names_them(
    recorded: tuple[Layout, FakeMutmut], capsys: pytest.CaptureFixture[str]
) -> None:
    """With half's survivors unlisted, `gate` fails and `gate --only tiny.logic` passes (half is not
    judged); over the limit, the refresh command it names carries the same --only."""
    layout, fake = recorded
    (layout.root / "equivalents.toml").write_text("")
    assert 1 == main(["gate"], layout, fake)
    assert 0 == main(["gate", "--only", "tiny.logic"], layout, fake)
    (layout.root / "tests/test_logic.py").write_text(TESTS["test_logic.py"] + "\n")
    capsys.readouterr()
    assert 1 == main(["gate", "--only", "tiny.logic", "--limit", "0"], layout, fake)
    assert "`python -m tools.mutation update --only tiny.logic`" in capsys.readouterr().out
    assert [] == fake.runs


def test_except_leaves_the_named_functions_unjudged_and_says_how_many_mutants(
    recorded: tuple[Layout, FakeMutmut], capsys: pytest.CaptureFixture[str]
) -> None:
    """With half's survivors unlisted, `gate --except tiny.arith.half` passes, naming the two mutants
    it did not judge; over the limit, its refresh command carries the same --except."""
    layout, fake = recorded
    (layout.root / "equivalents.toml").write_text("")
    assert 0 == main(["gate", "--except", "tiny.arith.half"], layout, fake)
    assert "mutation: not judged here: 2 mutants of tiny.arith.half (--except)\n" in capsys.readouterr().out
    (layout.root / "tests/test_logic.py").write_text(TESTS["test_logic.py"] + "\n")
    assert 1 == main(["gate", "--except", "tiny.arith.half", "--limit", "0"], layout, fake)
    assert "`python -m tools.mutation update --except tiny.arith.half`" in capsys.readouterr().out
    assert [] == fake.runs


def test_a_changed_environment_reruns_everything_against_every_test(
    recorded: tuple[Layout, FakeMutmut],
) -> None:
    """pyproject's [tool.mutmut] edited: every function is stale and the whole suite's stats run."""
    layout, fake = recorded
    (layout.root / "pyproject.toml").write_text(
        '[tool.mutmut]\nsource_paths = ["src/tiny/"]\ndebug = false\n'
    )
    assert 0 == main(["gate"], layout, fake)
    every = [
        "tiny.arith.add",
        "tiny.arith.half",
        "tiny.arith.half",
        "tiny.logic.Box.size",
        "tiny.logic.Box.size",
    ]
    assert [(every, None)] == fake.runs


def test_an_unfinished_run_fails_and_writes_no_cache(
    recorded: tuple[Layout, FakeMutmut], capsys: pytest.CaptureFixture[str]
) -> None:
    """A mutant without a verdict fails the gate; the cache keeps what it held."""
    layout, fake = recorded
    before = (layout.root / "cache.json").read_text()
    (layout.root / "src/tiny/logic.py").write_text(SOURCE["logic.py"].replace("+ 1", "+ 2"))
    fake.finish = False
    assert 1 == main(["update"], layout, fake)
    assert before == (layout.root / "cache.json").read_text()
    assert "FAIL: mutant did not finish (not checked): tiny.logic.Box.size" in capsys.readouterr().out


def test_the_cache_file_is_deterministic_and_reads_back(recorded: tuple[Layout, FakeMutmut]) -> None:
    """Written, read and written again the file is byte-equal; one line per file, coverage set and
    function."""
    layout, _ = recorded
    text = (layout.root / "cache.json").read_text()
    assert text == dumps(load(layout.root / "cache.json"))
    assert 3 == sum(line.startswith('  "tiny.') for line in text.splitlines())


def test_a_shard_is_named_i_of_n(
    recorded: tuple[Layout, FakeMutmut], capsys: pytest.CaptureFixture[str]
) -> None:
    """`shard I/N` needs 1 <= I <= N: anything else ends with one line naming it, exit 2."""
    layout, fake = recorded
    assert 2 == main(["shard", "3/2"], layout, fake)
    assert "mutation shard: I/N with 1 <= I <= N, got '3/2'\n" == capsys.readouterr().err


SPEC = (
    "# the tiny spec\n[meta]\nstage = 1\n\n"
    '[[rows]]\nid = "R.one"\nexamples = [{ where = { x = 1 }, value = 2 }]\n\n'
    '[[rows]]\nid = "R.two"\ntitle = "two"\n'
)
REORDERED = (
    '[[rows]]\ntitle = "two"\nid = "R.two"\n\n'
    "[[rows]]\nid   =   'R.one'\nexamples = [{ value = 2, where = { x = 1 } }]  # moved\n\n"
    "[meta]\nstage = 1\n"
)


@pytest.fixture
def with_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Layout, FakeMutmut]:
    """The tiny project with a spec file; tiny.logic reads the spec's text (as contracts.spec does)."""
    project(tmp_path)
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "tiny.toml").write_text(SPEC, encoding="utf-8")
    layout = Layout(tmp_path, "src/tiny", (), ("tests",), ("specs",), (), "cache.json", "equivalents.toml")
    layout = replace(layout, spec_readers=("tiny.logic.",))
    fake = FakeMutmut(tmp_path)
    assert 0 == main(["update"], layout, fake)
    fake.runs.clear()
    capsys.readouterr()
    return layout, fake


def test_a_spec_edit_that_says_nothing_new_stales_only_the_functions_reading_its_text(
    with_spec: tuple[Layout, FakeMutmut],
) -> None:
    """Comments, whitespace, quotes, the order of keys and of rows: the functions outside the spec's
    readers keep their verdicts; the reader (its tests parse the text) runs again."""
    layout, fake = with_spec
    (layout.root / "specs" / "tiny.toml").write_text(REORDERED, encoding="utf-8")
    assert 0 == main(["update"], layout, fake)
    assert ["tiny.logic.Box.size"] == fake.functions_run()


def test_a_changed_row_value_stales_every_function_when_no_run_recorded_what_tests_read(
    with_spec: tuple[Layout, FakeMutmut],
) -> None:
    """One example value of one row changed, and no stats pass recorded which rows the test files
    read: any of them may read it, so every function runs again."""
    layout, fake = with_spec
    spec = layout.root / "specs" / "tiny.toml"
    spec.write_text(SPEC.replace("value = 2", "value = 3"), encoding="utf-8")
    assert 0 == main(["update"], layout, fake)
    assert ["tiny.arith.add", "tiny.arith.half", "tiny.logic.Box.size"] == fake.functions_run()


@pytest.fixture
def with_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Layout, FakeMutmut]:
    """The tiny project with a spec whose row R.one test_arith.py reads (and no file reads R.two);
    no function reads the spec's text."""
    project(tmp_path)
    (tmp_path / "tests" / "test_arith.py").write_text(TESTS["test_arith.py"] + "# reads R.one\n")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "tiny.toml").write_text(SPEC, encoding="utf-8")
    layout = Layout(tmp_path, "src/tiny", (), ("tests",), ("specs",), (), "cache.json", "equivalents.toml")
    fake = FakeMutmut(tmp_path, reads=True)
    assert 0 == main(["update"], layout, fake)
    fake.runs.clear()
    capsys.readouterr()
    return layout, fake


def test_a_changed_row_stales_only_the_functions_whose_tests_read_it(
    with_reads: tuple[Layout, FakeMutmut],
) -> None:
    """R.two's title changed: no test file read it, nothing runs; R.one's example changed: the
    functions test_arith.py covers run again, Box.size (test_logic.py) keeps its verdicts."""
    layout, fake = with_reads
    spec = layout.root / "specs" / "tiny.toml"
    spec.write_text(SPEC.replace('title = "two"', 'title = "deux"'), encoding="utf-8")
    assert 0 == main(["update"], layout, fake)
    assert [] == fake.runs
    spec.write_text(SPEC.replace('title = "two"', 'title = "deux"').replace("value = 2", "value = 3"))
    assert 0 == main(["update"], layout, fake)
    assert ["tiny.arith.add", "tiny.arith.half"] == fake.functions_run()


def test_a_field_read_alone_stales_only_on_that_fields_change(with_reads: tuple[Layout, FakeMutmut]) -> None:
    """test_logic.py reads R.two's title only: a field added to R.two changes nothing for it; the title
    changed reruns Box.size."""
    layout, fake = with_reads
    (layout.root / "tests/test_logic.py").write_text(TESTS["test_logic.py"] + "# reads R.two:title\n")
    assert 0 == main(["update"], layout, fake)
    fake.runs.clear()
    spec = layout.root / "specs" / "tiny.toml"
    spec.write_text(SPEC + 'note = "new"\n', encoding="utf-8")
    assert 0 == main(["update"], layout, fake)
    assert [] == fake.runs
    spec.write_text(SPEC.replace('title = "two"', 'title = "deux"') + 'note = "new"\n', encoding="utf-8")
    assert 0 == main(["update"], layout, fake)
    assert ["tiny.logic.Box.size"] == fake.functions_run()


def test_a_rows_kind_or_a_new_row_stales_every_function(with_reads: tuple[Layout, FakeMutmut]) -> None:
    """Which rows exist and their kinds decide what every parametrized test selects: a row added
    runs every function again."""
    layout, fake = with_reads
    spec = layout.root / "specs" / "tiny.toml"
    spec.write_text(SPEC + '\n[[rows]]\nid = "R.three"\n', encoding="utf-8")
    assert 0 == main(["update"], layout, fake)
    assert ["tiny.arith.add", "tiny.arith.half", "tiny.logic.Box.size"] == fake.functions_run()


def test_a_data_file_stales_only_the_functions_whose_tests_name_it(
    with_reads: tuple[Layout, FakeMutmut],
) -> None:
    """A README under tests/ no test names changes nothing; a data file test_logic.py names by its
    file name reruns the function that file covers (and rechecks half's survivors against it)."""
    layout, fake = with_reads
    (layout.root / "tests" / "README.md").write_text("where a new test goes\n")
    (layout.root / "tests" / "pins.json").write_text("{}\n")
    (layout.root / "tests" / "test_logic.py").write_text(TESTS["test_logic.py"] + "PINS = 'pins.json'\n")
    assert 0 == main(["update"], layout, fake)
    fake.runs.clear()
    (layout.root / "tests" / "README.md").write_text("where a new test goes, and why\n")
    assert 0 == main(["update"], layout, fake)
    assert [] == fake.runs
    (layout.root / "tests" / "pins.json").write_text('{"a": 1}\n')
    assert 0 == main(["update"], layout, fake)
    half, size = ["tiny.arith.half"] * 2, ["tiny.logic.Box.size"] * 2  # half's survivors: rechecked
    assert [([*half, *size], ["tests/test_logic.py"])] == fake.runs


def test_a_stale_function_also_runs_against_test_files_added_since(tmp_path: Path) -> None:
    """With every mutant killed (nothing to recheck), a new test file that reaches add (its old
    coverage cannot show it) still runs beside add's own file when add is edited."""
    layout = project(tmp_path)
    (tmp_path / "equivalents.toml").write_text("")
    fake = FakeMutmut(tmp_path, survivors=())
    assert 0 == main(["update"], layout, fake)
    fake.runs.clear()
    more = "from tiny.arith import add\n\n\ndef test_m():\n    add\n"
    (layout.root / "tests/test_more.py").write_text(more)
    arith = layout.root / "src/tiny/arith.py"
    arith.write_text(arith.read_text().replace("return a + b", "return b + a"))
    assert 0 == main(["update"], layout, fake)
    assert [(["tiny.arith.add"], ["tests/test_arith.py", "tests/test_more.py"])] == fake.runs
