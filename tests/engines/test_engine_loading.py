"""Loading an engine: a ModuleNotFoundError the adapter raises itself, naming no module, is the
adapter's own failure, never reported as an unknown engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from contracts.engines import UnknownEngineError, load_engine


def test_a_nameless_module_not_found_raised_by_the_adapter_propagates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`raise ModuleNotFoundError("...")` at an adapter's import (no module name attached) is raised
    as it is: it says nothing about whether the adapter's module exists."""
    (tmp_path / "raises_by_hand.py").write_text(
        "raise ModuleNotFoundError('the engine build lacks its native part')\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as raised:
        load_engine("raises_by_hand:Engine")
    assert (None, False) == (raised.value.name, isinstance(raised.value, UnknownEngineError))
