"""A report says what ran: options passed to pytest after `--` are in its selection, and a hypothesis
profile other than the one asked for (or the asked one registered again with fewer examples by an
adapter) is named with what it set, never reported as the profile verify asked for."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import Phase, settings

import contracts.verify.profiles  # noqa: F401  (registers the profiles read below)
from contracts.cli.commands import main
from contracts.verify.plugin import effective
from contracts.verify.runner import profile_ran
from tests.common.paths import ROOT

REREGISTERS = """
from hypothesis import settings

from contracts.engines.reference import ReferenceEngine

settings.register_profile("quick", max_examples=1, derandomize=True)
settings.load_profile("quick")


class Engine(ReferenceEngine):
    name = "reregisters"
"""
ROWS = ["--rows", "S03.grad.add", "--quick"]
PHASES = "['explain', 'explicit', 'generate', 'reuse', 'shrink', 'target']"


def report_of(arguments: list[str], tmp_path: Path) -> dict[str, object]:
    out = tmp_path / "r.json"
    main(["verify", "-q", "--format", "json", "-o", str(out), *arguments])
    document: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    return document


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="starts contracts verify's children")
def test_pytest_options_after_the_separator_are_reported_with_the_profile_they_chose(tmp_path: Path) -> None:
    """`-- --hypothesis-profile=ci` on a --quick run: the report lists the option and names profile
    ci as run, with quick as asked."""
    report = report_of([*ROWS, "--", "--hypothesis-profile=ci"], tmp_path)
    selection = report["selection"]
    assert isinstance(selection, dict)
    assert ["--hypothesis-profile=ci"] == selection["pytest_args"]
    expected = (
        f"ci (asked for quick; the suite's process ran with {{'max_examples': 50, 'derandomize': True, "
        f"'phases': {PHASES}}}, not {{'max_examples': 5, 'derandomize': True, 'phases': {PHASES}}})"
    )
    assert expected == report["profile"]


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="starts contracts verify's children")
def test_an_adapter_that_registers_the_profile_again_is_reported_with_its_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An adapter registering `quick` with one example at import: the report's profile says so."""
    (tmp_path / "reregisters.py").write_text(REREGISTERS, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(ROOT)]))
    monkeypatch.chdir(tmp_path)
    report = report_of(["--impl", "reregisters:Engine", *ROWS], tmp_path)
    expected = (
        f"quick (asked for quick; the suite's process ran with {{'max_examples': 1, 'derandomize': True, "
        f"'phases': {PHASES}}}, not {{'max_examples': 5, 'derandomize': True, 'phases': {PHASES}}})"
    )
    assert expected == report["profile"]


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="starts contracts verify's children")
def test_a_run_as_asked_names_its_profile_alone(tmp_path: Path) -> None:
    """Nothing changed the profile: the report names quick, and no pytest options."""
    report = report_of(ROWS, tmp_path)
    selection = report["selection"]
    assert isinstance(selection, dict)
    assert ("quick", []) == (report["profile"], selection["pytest_args"])


def test_effective_settings_are_what_decides_how_much_runs() -> None:
    """The examples, derandomization and phases of a settings object, phases by name and sorted."""
    chosen = settings(max_examples=7, derandomize=False, phases=[Phase.generate, Phase.explicit])
    expected = {"max_examples": 7, "derandomize": False, "phases": ["explicit", "generate"]}
    assert expected == effective(chosen)


@pytest.mark.parametrize(
    ("ran", "changed", "expected"),
    [
        ("ci", {}, "ci"),
        ("quick", {}, "quick (asked for ci;"),
        ("ci", {"max_examples": 1}, "ci (asked for ci;"),
        ("ci", {"derandomize": False}, "ci (asked for ci;"),
    ],
)
def test_the_profile_is_named_as_asked_only_when_name_and_settings_match(
    ran: str, changed: dict[str, object], expected: str
) -> None:
    """The results of a child that ran the asked profile as registered name it alone; another name, or
    the same name with other settings, is named with what it set and what was asked."""
    used = {**effective(settings.get_profile("ci")), **changed}
    named = profile_ran("ci", {"profile": ran, "settings": used})
    assert (expected, expected == "ci") == (named[: len(expected)], named == "ci")
