"""The listing `contracts specs` prints: a format it does not know is refused, never guessed."""

from __future__ import annotations

import re

import pytest

from contracts.spec_suite.spec_rows import rows
from contracts.verify.formats import format_specs


@pytest.mark.parametrize("fmt", ["yaml", "TABLE", ""])
def test_an_unknown_format_is_refused_naming_it_and_the_known_ones(fmt: str) -> None:
    """Only table, markdown and json are listings; anything else is a ValueError, nothing printed."""
    expected = f"format {fmt!r}: expected one of table, markdown, json"
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        format_specs(rows(stage="05"), fmt)
