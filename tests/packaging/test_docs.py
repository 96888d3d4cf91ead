"""The docs say what the code does: the README's adapter is the shipped example, and every generated
figure in the docs is the one its source gives today."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tools import docs

ROOT = Path(__file__).resolve().parents[2]
# mutmut's copy of the project holds no docs; the docs say nothing a mutant could change
pytestmark = pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="docs: no mutant reaches them")


def test_the_readme_adapter_is_the_shipped_example() -> None:
    """The README's adapter code block is examples/my_engine.py, byte for byte."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    example = (ROOT / "examples" / "my_engine.py").read_text(encoding="utf-8")
    assert [example] == [block for block in blocks if "class MyEngine" in block]


def test_every_generated_block_of_the_docs_is_current() -> None:
    """`python -m tools.docs --check` finds no generated block out of date (the engine matrix from the
    pinned verdicts, the rows by level from the spec, the measured figures from their result files)."""
    assert 0 == docs.main(["--check"])


def test_every_pinned_failure_of_a_shipped_engine_is_confirmed_in_its_page() -> None:
    """Each row a shipped engine fails in its pin (tests/verify/shipped_verdicts.json) is named in that
    engine's page, docs/engines/<engine>.md, where a hand computation outside the tool confirms it."""
    pin = json.loads((ROOT / "tests" / "verify" / "shipped_verdicts.json").read_text(encoding="utf-8"))
    unconfirmed = {
        engine: [
            row_id
            for row_id in pin[engine].get("failed", [])
            if row_id not in (ROOT / "docs" / "engines" / f"{engine}.md").read_text(encoding="utf-8")
        ]
        for engine in pin["engines"]
    }
    assert {engine: [] for engine in pin["engines"]} == unconfirmed
