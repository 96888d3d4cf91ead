"""Every row's `seed` field holds the seeds' own words, verbatim; every `origin = "seed"` row has one.

The matching rule (what "verbatim" means here):

* A seed text is read as UTF-8 and put in Unicode NFC. A line holding a tab is a table row: its cells,
  each stripped, are joined by " | " (the seeds' tables are tab-separated; a quote writes a row as
  `cell | cell | cell`). Then every run of whitespace (spaces, tabs, line breaks) becomes one space, so
  a quote may span the lines of a block (`a\\n  -> b` is quoted `a -> b`) and the padding of aligned
  code (`x  = 1` is quoted `x = 1`). Nothing else is touched: LaTeX, backticks, Markdown, punctuation
  and letters stay exactly as the seed writes them.
* A quote is put through the same normalisation and split on " … " (space, U+2026, space): the mark of
  omitted text. Each fragment must hold at least MIN_FRAGMENT characters (a single short word or symbol
  matches almost anywhere) and must occur, as a substring, in one seed file, each fragment after the
  end of the previous one (the omissions are in the seed's order, within one seed).

So an English restatement ("P_matmul = MN(2K - 1)" for `P_{\\mathrm{matmul}}=MN(2K-1)`), a changed
arrow ("→" for "->"), table cells without the seed's backticks or joined in another way, or two seed
sentences glued in the wrong order all fail. A paraphrase belongs in the row's `note`.

The seeds live beside the project (`../shared/seeds/`) or where CONTRACTS_SEEDS points; where they
are absent (a wheel install), the check is skipped with that reason.
"""

from __future__ import annotations

import os
import re
import tomllib
import unicodedata
from collections.abc import Mapping
from pathlib import Path

import pytest

from contracts.spec import SpecRow, spec_dir
from contracts.spec_suite.spec_rows import all_rows

ROOT = Path(__file__).resolve().parents[2]
OMITTED = " … "  # the mark of omitted text inside a quote
CELL = " | "  # table cells of one row, as a quote writes them
MIN_FRAGMENT = 8
WHITESPACE = re.compile(r"\s+")


def seeds_dir() -> Path:
    """CONTRACTS_SEEDS if set, else shared/seeds/ beside the project root."""
    configured = os.environ.get("CONTRACTS_SEEDS")
    return Path(configured) if configured else ROOT.parent / "shared" / "seeds"


def normalised(text: str) -> str:
    """Tab-separated table rows as cells joined by " | ", NFC, every whitespace run one space."""
    lines = [
        CELL.join(cell.strip() for cell in line.split("\t")) if "\t" in line else line
        for line in text.splitlines()
    ]
    return WHITESPACE.sub(" ", unicodedata.normalize("NFC", "\n".join(lines))).strip()


def fragments(quote: str) -> list[str]:
    """The quote's verbatim pieces: split on the omission mark, each normalised like the seeds."""
    return [normalised(piece) for piece in quote.split(OMITTED)]


def found_in(pieces: list[str], text: str) -> bool:
    """Every piece occurs in text, each after the end of the one before."""
    position = 0
    for piece in pieces:
        at = text.find(piece, position)
        if at < 0:
            return False
        position = at + len(piece)
    return True


def problem(quote: str, seeds: Mapping[str, str]) -> str | None:
    """Why the quote is not the seeds' own words (None: it is, in one seed file)."""
    pieces = fragments(quote)
    short = [piece for piece in pieces if len(piece) < MIN_FRAGMENT]
    if short:
        return f"fragment(s) shorter than {MIN_FRAGMENT} characters: {short!r}"
    if any(found_in(pieces, text) for text in seeds.values()):
        return None
    missing = [piece for piece in pieces if not any(piece in text for text in seeds.values())]
    if missing:
        return f"not verbatim in any seed: {missing!r}"
    return "every fragment occurs, but not in this order within one seed file"


def load_seeds(directory: Path) -> dict[str, str]:
    return {
        path.name: normalised(path.read_text(encoding="utf-8")) for path in sorted(directory.glob("*.txt"))
    }


@pytest.fixture(scope="module")
def seeds() -> dict[str, str]:
    directory = seeds_dir()
    if not directory.is_dir():
        pytest.skip(f"seed texts not found at {directory} (set CONTRACTS_SEEDS to check the quotes)")
    return load_seeds(directory)


def covered(spec_row: Mapping[str, object]) -> bool:
    """The check covers every seed row (it must quote) and every row that quotes."""
    return spec_row["origin"] == "seed" or "seed" in spec_row


def quoted_rows() -> list[SpecRow]:
    return [r for r in all_rows() if covered(r)]


def quote_problem(spec_row: SpecRow, seeds: Mapping[str, str]) -> str | None:
    if "seed" not in spec_row:
        return 'an origin = "seed" row must quote the seed in its `seed` field'
    return problem(spec_row["seed"], seeds)


@pytest.mark.parametrize("spec_row", [pytest.param(r, id=r.id) for r in quoted_rows()])
def test_seed_field_is_verbatim(spec_row: SpecRow, seeds: dict[str, str]) -> None:
    """The row's `seed` field is the seeds' own words under the module's matching rule."""
    found = quote_problem(spec_row, seeds)
    assert None is found


def meta_seeds(path: Path) -> list[str]:
    with path.open("rb") as file:
        named = str(tomllib.load(file)["meta"]["seed"])
    return [name.strip() for name in named.split(",")]


@pytest.mark.parametrize("path", sorted(spec_dir().glob("*.toml")), ids=lambda p: p.name)
def test_meta_names_seed_files_that_exist(path: Path, seeds: dict[str, str]) -> None:
    """Each spec file's [meta] seed names seed files (comma-separated) that are in the seeds directory."""
    assert [] == [name for name in meta_seeds(path) if name not in seeds]


# ---------------------------------------------------------------- the rule itself, on made-up seeds

SEED = "\n".join(
    [
        "따라서 matmul이 만드는 새 graph node 수는",
        "",
        "P_{\\mathrm{matmul}}=MN(2K-1)",
        "",
        "이다. 실행한 $2\\times2$ 예제는 12 개다.",
        "실패\t차단 위치\t늦게 발견할 때의 문제",
        "ragged row\t`Matrix` 생성자\t뒤 연산마다 row 길이를 추측",
        "모든 LinearPlan 검증",
        "  -> layer name과 연결 shape 검증",
        "precondition  = input relation, parameter seal",
    ]
)


@pytest.mark.parametrize(
    "quote",
    [
        pytest.param("P_{\\mathrm{matmul}}=MN(2K-1)", id="latex-as-written"),
        pytest.param("graph node 수는 P_{\\mathrm{matmul}}=MN(2K-1) 이다.", id="across-blank-lines"),
        pytest.param("ragged row | `Matrix` 생성자 | 뒤 연산마다 row 길이를 추측", id="table-row"),
        pytest.param("모든 LinearPlan 검증 -> layer name과 연결 shape 검증", id="block-lines"),
        pytest.param("precondition = input relation", id="aligned-padding"),
        pytest.param("P_{\\mathrm{matmul}}=MN(2K-1) … ragged row | `Matrix` 생성자", id="omission-in-order"),
    ],
)
def test_the_seeds_own_words_match(quote: str) -> None:
    """LaTeX, a table row's cells, a block's lines and an omission in the seed's order all match."""
    assert None is problem(quote, {"s.txt": normalised(SEED)})


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        pytest.param(
            "P_matmul = MN(2K - 1)",
            "not verbatim in any seed: ['P_matmul = MN(2K - 1)']",
            id="restated-latex",
        ),
        pytest.param(
            "ragged row | Matrix 생성자 | 뒤 연산마다 row 길이를 추측",
            "not verbatim in any seed: ['ragged row | Matrix 생성자 | 뒤 연산마다 row 길이를 추측']",
            id="cells-without-backticks",
        ),
        pytest.param(
            "ragged row / `Matrix` 생성자",
            "not verbatim in any seed: ['ragged row / `Matrix` 생성자']",
            id="cells-joined-otherwise",
        ),
        pytest.param(
            "모든 LinearPlan 검증 → layer name과 연결 shape 검증",
            "not verbatim in any seed: ['모든 LinearPlan 검증 → layer name과 연결 shape 검증']",
            id="arrow-changed",
        ),
        pytest.param(
            "ragged row | `Matrix` 생성자 … P_{\\mathrm{matmul}}=MN(2K-1)",
            "every fragment occurs, but not in this order within one seed file",
            id="omission-out-of-order",
        ),
        pytest.param(
            "matmul … 12 개다.", "fragment(s) shorter than 8 characters: ['matmul', '12 개다.']", id="short"
        ),
        pytest.param(
            "the matmul makes MN(2K - 1) new nodes",
            "not verbatim in any seed: ['the matmul makes MN(2K - 1) new nodes']",
            id="english-paraphrase",
        ),
    ],
)
def test_anything_else_fails(quote: str, expected: str) -> None:
    """A restatement, changed cells or arrows, an omission out of order or a bare word is refused."""
    assert expected == problem(quote, {"s.txt": normalised(SEED)})


def test_fragments_must_share_one_seed_file() -> None:
    """Two fragments found only in two different seed files do not make one quote."""
    seeds = {"a.txt": normalised("첫 번째 문장입니다."), "b.txt": normalised("두 번째 문장입니다.")}
    expected = "every fragment occurs, but not in this order within one seed file"
    assert expected == problem("첫 번째 문장입니다. … 두 번째 문장입니다.", seeds)


def test_a_seed_row_without_a_quote_is_refused() -> None:
    """An origin = "seed" row with no `seed` field fails; a decision row is checked only if it quotes."""
    seed_row = SpecRow({"id": "X.rule.a", "kind": "rule", "origin": "seed"}, "X", "x.toml", frozenset())
    assert ('an origin = "seed" row must quote the seed in its `seed` field', True) == (
        quote_problem(seed_row, {}),
        covered(seed_row),
    )
    assert (False, True) == (
        covered({"id": "X.rule.b", "origin": "decision"}),
        covered({"id": "X.rule.c", "origin": "decision", "seed": "a question"}),
    )
