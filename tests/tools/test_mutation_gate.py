"""The gate's rule, on made-up verdicts: the score, each reason it fails, and what it prints."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools.mutation.gate import Key, dump_listed, gate, judge, load_listed

A: Key = ("pkg.mod.f", "- return a + b\n+ return a - b")
B: Key = ("pkg.mod.f", "- return a + b\n+ return a * b")
C: Key = ("pkg.mod.g", "- if x:\n+ if not x:")
D: Key = ("ROW.x", "examples.0.value: 3 -> 4")
EVERY = (A, B, C, D)


def test_the_score_counts_timeouts_as_killed_and_leaves_out_skipped_and_listed_equivalents() -> None:
    """(killed + timeout) / (total - skipped - listed equivalents): 3 / (6 - 1 - 1)."""
    verdicts = {
        A: "killed",
        B: "timeout",
        C: "survived",
        D: "skipped",
        ("x", "1"): "killed",
        ("x", "2"): "no tests",
    }
    found = judge(verdicts, {*verdicts}, {C: "equivalent"}, threshold=0.5)
    assert 3 / 4 == found.score
    assert ["unlisted no tests mutant: x: 2 (kill it, or list it in the list)"] == found.problems


def test_a_clean_run_passes_and_a_satisfied_probe_extension_is_no_mutant() -> None:
    """Every mutant killed or listed: no problem, score 100 %; `satisfied` counts in neither part."""
    verdicts = {A: "killed", B: "survived", C: "caught by type check", D: "satisfied"}
    found = judge(verdicts, EVERY, {B: "same program"})
    assert ([], 1.0) == (found.problems, found.score)


@pytest.mark.parametrize("status", ["survived", "no tests", "suspicious", "segfault"])
def test_an_unlisted_mutant_that_was_not_killed_fails(status: str) -> None:
    """Each not-killed status fails unless the mutant is listed; listed, it is an equivalent."""
    assert [
        f"unlisted {status} mutant: pkg.mod.g: - if x: | + if not x: (kill it, or list it in L)"
    ] == judge({C: status}, EVERY, {}, threshold=0.0, list_path="L").problems
    assert [] == judge({C: status}, EVERY, {C: "why"}, threshold=0.0).problems


@pytest.mark.parametrize("status", ["not checked", "check was interrupted by user", "not run", "refused"])
def test_a_mutant_that_did_not_finish_fails_listed_or_not(status: str) -> None:
    """A run that did not finish has no verdict: it fails the gate even for a listed mutant."""
    expected = [f"mutant did not finish ({status}): pkg.mod.g: - if x: | + if not x:; run it again"]
    assert expected == judge({A: "killed", C: status}, EVERY, {C: "why"}, threshold=0.0).problems


@pytest.mark.parametrize("status", ["killed", "timeout"])
def test_a_listed_mutant_that_is_detected_fails(status: str) -> None:
    """A listed entry whose mutant tests now detect must leave the list."""
    assert [f"listed mutant is {status}: {A[0]}: - return a + b | + return a - b; remove it from L"] == judge(
        {A: status}, EVERY, {A: "why"}, list_path="L"
    ).problems


def test_a_stale_listing_fails_on_a_whole_run_and_on_a_sample() -> None:
    """An entry that matches no mutant of today's code fails, judged against every mutant, not
    against what ran: a sample of one function fails on a stale entry of another."""
    stale: Key = ("pkg.mod.gone", "- x\n+ y")
    message = "listed mutant matches no mutant of today's code: pkg.mod.gone: - x | + y; remove it from L"
    whole = judge(dict.fromkeys(EVERY, "killed"), EVERY, {stale: "why"}, list_path="L")
    sample = judge({A: "killed"}, EVERY, {stale: "why"}, list_path="L")
    assert [message] == whole.problems == sample.problems
    assert [] == judge({A: "killed"}, EVERY, {C: "a listed mutant outside the sample"}).problems


def test_a_score_below_the_threshold_fails_and_no_verdict_at_all_fails() -> None:
    """19 of 20 killed is 95 %: only the survivor fails; 18 of 20 fails the threshold too; nothing
    judged is no pass."""
    keys = [("f", str(n)) for n in range(20)]
    nineteen = {key: "killed" for key in keys[:19]} | {keys[19]: "survived"}
    assert 1 == len(judge(nineteen, keys, {}).problems)
    eighteen = nineteen | {keys[18]: "survived"}
    assert "score 90.00% is below the threshold 95%" == judge(eighteen, keys, {}).problems[-1]
    assert 3 == len(judge(eighteen, keys, {}).problems)
    assert ["no mutant was judged"] == judge({}, keys, {}).problems


def test_the_report_gives_the_score_each_problem_on_one_line_and_the_verdict_last(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """gate prints the score line, one FAIL line per problem (the caller's own first), the verdict
    last, and returns 1 when it fails, 0 when it passes."""
    code = gate("mutation", {A: "killed", C: "survived"}, EVERY, {}, 0.0, "L", ["decorated function: f"])
    lines = capsys.readouterr().out.splitlines()
    assert (1, 4) == (code, len(lines))
    assert lines[0].startswith("mutation score 50.00% (threshold 0%): 1 killed, 1 not killed")
    assert ["FAIL: decorated function: f", "FAIL: unlisted survived mutant: "] == [lines[1], lines[2][:32]]
    assert "mutation gate: failed" == lines[-1]
    assert 0 == gate("spec-mutation", {A: "killed"}, EVERY, {}, 0.95, "L")
    assert "spec-mutation gate: passed" == capsys.readouterr().out.splitlines()[-1]


def test_the_list_reads_back_what_is_written_and_refuses_an_entry_without_reason(tmp_path: Path) -> None:
    """Changes of several lines, quotes and backslashes read back as written; a missing reason, a
    missing change or a repeated entry is refused, naming the mutant."""
    tricky: Key = ("pkg.m.f", "- s = \"a\\n\" + 'b'\n+ s = \"XXa\\nXX\" + 'b'")
    path = tmp_path / "list.toml"
    path.write_text(dump_listed([("function", tricky, "why"), ("row", D, "it's the same")], "# header"))
    assert {tricky: "why", D: "it's the same"} == load_listed(path)
    path.write_text('[[mutant]]\nfunction = "f"\nchange = "c"\nreason = " "\n')
    with pytest.raises(ValueError, match="f: c is listed without a reason"):
        load_listed(path)
    path.write_text('[[mutant]]\nfunction = "f"\nreason = "r"\n')
    with pytest.raises(ValueError, match="needs `function`"):
        load_listed(path)
    path.write_text('[[mutant]]\nrow = "R"\nchange = "c"\nreason = "r"\n' * 2)
    with pytest.raises(ValueError, match="R: c is listed twice"):
        load_listed(path)
    assert {} == load_listed(tmp_path / "absent.toml")
