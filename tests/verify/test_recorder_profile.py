"""The results the suite's process writes name the hypothesis profile in effect and what it sets, for
verify to compare with the profile it asked for."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from hypothesis import settings

from contracts.verify.plugin import Recorder


def test_the_results_name_the_profile_and_its_settings(tmp_path: Path) -> None:
    """profile: the current profile's name; settings: its examples, derandomization and phases."""
    out = tmp_path / "results.json"
    Recorder(out, progress=False, impl="reference").pytest_sessionfinish(SimpleNamespace(), 0)  # type: ignore[arg-type]
    written = json.loads(out.read_text(encoding="utf-8"))
    current = settings()
    expected = {
        "max_examples": current.max_examples,
        "derandomize": current.derandomize,
        "phases": sorted(phase.name for phase in current.phases),
    }
    assert (settings.get_current_profile_name(), expected, "reference") == (
        written["profile"],
        written["settings"],
        written["impl"],
    )
