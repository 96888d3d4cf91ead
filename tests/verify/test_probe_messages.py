"""What the probe (the child verify asks which engine --impl selects) says, in full: an unknown engine
with the names it could have been, an adapter that takes over the harness, declarations that are not
plain data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from contracts.engines import DeclarationError, check_declarations
from contracts.engines.base import Engine
from contracts.spec_suite.spec_rows import all_rows
from contracts.verify import probe
from contracts.verify.probe import ProbeError

SHIPPED_NAMES = "reference, torch, micrograd, jax, tinygrad, autograd"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("json:Nothing", "AttributeError: module 'json' has no attribute 'Nothing'"),
        ("json", "AttributeError: module 'json' has no attribute 'Engine'"),
    ],
)
def test_an_unknown_engine_is_named_with_every_shipped_name(name: str, why: str) -> None:
    """A module without the class (or without the default class Engine): the whole line."""
    with pytest.raises(ProbeError) as refused:
        probe.load(name)
    expected = (
        f"unknown engine {name!r} ({why}); use one of {SHIPPED_NAMES}, or a dotted path pkg.module:Class "
        "to an Engine subclass"
    )
    assert expected == str(refused.value)


def test_an_adapter_overriding_the_harness_is_told_what_to_declare_instead() -> None:
    """Overriding lacks(): the whole message, naming the method and the declarations to use."""
    kind = type("Declaring", (Engine,), {"name": "declaring", "lacks": lambda self, *args: "not today"})
    message = (
        "declaring: overrides lacks(), which the suite runs to decide what is applicable and how a refusal "
        "maps; declare capabilities, conventions, lacking, error_families and error_patterns instead"
    )
    with pytest.raises(DeclarationError, match=f"^{re.escape(message)}$"):
        check_declarations(kind(), all_rows())


SET_VERSION = """
from contracts.engines.reference import ReferenceEngine


class Engine(ReferenceEngine):
    name = "set-version"

    def version(self):
        return {"1", "2"}
"""


def test_declarations_that_are_not_plain_data_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version() that returns a set (verify reads the declarations back as JSON): one ProbeError line
    naming the adapter and the type."""
    (tmp_path / "set_version.py").write_text(SET_VERSION, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ProbeError) as refused:
        probe.declarations("set_version:Engine")
    assert str(refused.value).startswith("--impl set_version:Engine: reading its declarations")
    assert str(refused.value).endswith("TypeError: Object of type set is not JSON serializable")
