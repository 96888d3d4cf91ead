"""`contracts COMMAND --help` as a user reads it: a description, every argument described, the
placeholders and the defaults it states, and only options and values that exist. No test here pins
the wording of a help text."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from contracts.cli.commands import main

SECTIONS = ("options:", "positional arguments:")


@dataclass(frozen=True)
class Entry:
    """One argument as --help lists it: its invocation (flags and placeholder) and its description."""

    invocation: str
    description: str

    @property
    def flags(self) -> tuple[str, ...]:
        """The option strings (-o, --output), or the positional argument's name."""
        found = tuple(re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", self.invocation))
        return found or (self.invocation,)


@dataclass(frozen=True)
class Help:
    paragraphs: list[str]
    entries: list[Entry]

    def entry(self, flag: str) -> Entry:
        (found,) = [entry for entry in self.entries if flag in entry.flags]
        return found


def help_of(command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Help:
    """`contracts COMMAND --help` run in-process (exit code 0), printed wide enough that no line wraps."""
    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit) as stopped:
        main([command, "--help"])
    assert 0 == stopped.value.code
    out, err = capsys.readouterr()
    assert "" == err
    paragraphs = out.rstrip("\n").split("\n\n")
    entries: list[Entry] = []
    for paragraph in paragraphs:
        if not paragraph.startswith(SECTIONS):
            continue
        for line in paragraph.splitlines()[1:]:
            if line.startswith("   "):  # a description on its own line, below a long invocation
                last = entries.pop()
                entries.append(Entry(last.invocation, f"{last.description} {line.strip()}".strip()))
                continue
            invocation, _, description = line.strip().partition("  ")
            entries.append(Entry(invocation, description.strip()))
    return Help(paragraphs, entries)


FLAGS = {
    "verify": [
        ("-h", "--help"),
        ("--impl",),
        ("--format",),
        ("-o", "--output"),
        ("--level",),
        ("-n", "--workers"),
        ("--rows",),
        ("-k",),
        ("--hypothesis-profile", "--profile"),
        ("--pytest-log",),
        ("--quick",),
        ("--seed",),
        ("--timeout",),
        ("-q", "--quiet"),
    ],
    "specs": [("-h", "--help"), ("--stage",), ("--kind",), ("--rows",), ("--format",), ("--specs",)],
    "matrix": [
        ("reports",),
        ("-h", "--help"),
        ("--impl",),
        ("--format",),
        ("-o", "--output"),
        ("--verify-arg",),
    ],
}
COMMANDS = sorted(FLAGS)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_describes_the_command_above_its_arguments(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the usage line (which names `contracts COMMAND`) and the argument lists, --help says
    what the command does."""
    shown = help_of(command, capsys, monkeypatch)
    assert shown.paragraphs[0].startswith(f"usage: contracts {command} ")
    assert not shown.paragraphs[1].startswith(SECTIONS)
    assert "" != shown.paragraphs[1].strip()


@pytest.mark.parametrize("command", COMMANDS)
def test_help_lists_every_argument_each_with_a_description(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--help lists exactly the command's arguments (positional ones too), and none without a description."""
    shown = help_of(command, capsys, monkeypatch)
    assert FLAGS[command] == [entry.flags for entry in shown.entries]
    assert [] == [entry.flags for entry in shown.entries if not entry.description]


@pytest.mark.parametrize(
    ("command", "invocation"),
    [
        ("verify", "--rows PREFIX"),
        ("verify", "--timeout SECONDS"),
        ("verify", "--level {values,refusals,contract}"),
        ("specs", "--rows PREFIX"),
    ],
)
def test_an_options_placeholder_is_the_one_documented(
    command: str, invocation: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--help shows `--rows PREFIX` and `--timeout SECONDS` as docs/verify.md writes them, and --level
    with its three levels."""
    flag = invocation.split()[0]
    assert invocation == help_of(command, capsys, monkeypatch).entry(flag).invocation


@pytest.mark.parametrize(("flag", "placeholder"), [("--rows", "PREFIX"), ("--timeout", "SECONDS")])
def test_verify_help_uses_the_placeholder_it_shows(
    flag: str, placeholder: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The description of `--rows PREFIX` and of `--timeout SECONDS` refers to the value by that name."""
    described = help_of("verify", capsys, monkeypatch).entry(flag).description
    assert re.search(rf"\b{placeholder}\b", described)


STATED_DEFAULTS = {
    "verify": {
        "--impl": "$CONTRACTS_IMPL or reference",
        "--format": "table",
        "--level": "contract",
        "--hypothesis-profile": "ci",
        "--timeout": "no limit",
    },
    "specs": {"--format": "table", "--specs": "$CONTRACTS_SPECS or the package's specs/"},
    "matrix": {"--format": "markdown"},
}


@pytest.mark.parametrize("command", COMMANDS)
def test_help_states_the_defaults_the_command_applies(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each `default:` in --help names the value used when the option is not given: verify's table
    format, level contract, profile ci and no time limit, and the environment variable of --impl and
    of specs' --specs."""
    stated: dict[str, str] = {}
    for entry in help_of(command, capsys, monkeypatch).entries:
        found = re.search(r"(?i)\bdefault: ([^,;)]+)", entry.description)
        if found:
            stated[entry.flags[0]] = found[1]
    assert STATED_DEFAULTS[command] == stated


def test_verify_impl_help_names_every_shipped_engine(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--impl's description lists the six shipped engines, comma-separated, as the unknown-engine error
    does."""
    described = help_of("verify", capsys, monkeypatch).entry("--impl").description
    assert "reference, torch, micrograd, jax, tinygrad, autograd" in described


def test_specs_kind_help_names_exactly_the_kinds_it_accepts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--kind accepts the six row kinds of the spec format, and its description names those six."""
    kinds = ["formula", "failure", "contract", "gradient", "rule", "precedence"]
    entry = help_of("specs", capsys, monkeypatch).entry("--kind")
    assert f"--kind {{{','.join(kinds)}}}" == entry.invocation
    (listed,) = re.findall(r"\(([^)]*)\)", entry.description)
    assert kinds == listed.split(", ")


def test_specs_stage_help_examples_are_stages_with_rows(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every example stage --stage's description gives (e.g. ...) lists at least one row."""
    described = help_of("specs", capsys, monkeypatch).entry("--stage").description
    (examples,) = re.findall(r"(?i)e\.g\. ([^)]*)", described)
    counts: dict[str, int] = {}
    for stage in examples.split(", "):
        assert 0 == main(["specs", "--stage", stage])
        counts[stage] = int(capsys.readouterr().out.splitlines()[-1].split()[0])
    assert [] == [stage for stage, count in counts.items() if count == 0]
    assert [] != list(counts)


@pytest.mark.parametrize("command", ["verify", "matrix"])
def test_every_option_a_help_text_names_exists(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An option a description names (verify's --quick names --hypothesis-profile, matrix's reports name
    `contracts verify --format json`) is one the user can type: the command's own or verify's."""
    typable = {flag for entry in help_of("verify", capsys, monkeypatch).entries for flag in entry.flags}
    shown = help_of(command, capsys, monkeypatch)
    typable |= {flag for entry in shown.entries for flag in entry.flags}
    named = [
        flag
        for entry in shown.entries
        for flag in re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", entry.description)
    ]
    assert [] == [flag for flag in named if flag not in typable]
    assert [] != named


def test_verify_help_ends_saying_where_arguments_after_the_separator_go(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last paragraph of verify's --help, below the options, says that what follows `--` goes to
    pytest."""
    last = help_of("verify", capsys, monkeypatch).paragraphs[-1]
    assert not last.startswith(SECTIONS)
    assert "`--`" in last
    assert "pytest" in last
