"""The `contracts` command: verify (the spec suite against an engine), specs (list the rows), plan."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from contracts.cli import plan
from contracts.engines import ENV_VAR, SHIPPED
from contracts.spec import SpecError, load_rows, spec_dir
from contracts.verify import matrix
from contracts.verify.formats import FORMATS, SPECS_FORMATS, format_specs
from contracts.verify.output import EXIT_OUTPUT, OutputError, write_whole
from contracts.verify.report import LEVELS
from contracts.verify.runner import VerifyError, VerifyOptions, split_prefixes, verify

USAGE = """usage: contracts COMMAND [options]

commands:
  verify         run the spec suite against an engine and report every spec row
  specs          list the spec rows (id, formula or failure, where blocked, exception)
  plan           print a model's plan (contracts plan --widths 3,4,2 --tokens 2)
  matrix         rows x engines from verify reports (markdown or one HTML page)

`contracts COMMAND --help` shows a command's options.
"""


# What --help says: prose for the reader, kept as data beside the parsers. The tests check that every
# argument is described and states its default (tests/cli/test_cli_help.py), never the wording.
VERIFY_HELP = {
    "": "Run the spec suite against an engine; one line per spec row. "
    "Exit 0 only when every applicable row passes.",
    "epilog": "Anything after `--` is passed to pytest unchanged.",
    "impl": f"engine under test: {', '.join(SHIPPED)}, or pkg.module:Class "
    f"(default: ${ENV_VAR} or reference)",
    "format": "report format (default: table)",
    "output": "write the report to this file instead of stdout",
    "level": "judge the engine on the rows up to this level: values (values and gradients), refusals "
    "(and refusing bad input with nothing changed), contract (and this project's own contract: "
    "messages, check order, strict bounds, graph counts); the exit code follows that claim "
    f"(default: {LEVELS[-1]})",
    "workers": "run in parallel with pytest-xdist: N or auto",
    "rows": "only rows whose id starts with PREFIX (repeatable, or comma-separated), and their tests",
    "keyword": "pytest -k expression (further selection)",
    "profile": "hypothesis profile (default: ci, derandomized)",
    "pytest_log": "keep pytest's own output in this file",
    "quick": "a smoke run for slow engines: deep-graph chain of 10^4 nodes, 512 draws per statistical "
    "check, hypothesis profile quick (unless --hypothesis-profile says otherwise); the report says so",
    "seed": "hypothesis seed (for profiles that are not derandomized)",
    "timeout": "fail a test still running after SECONDS (an engine that hangs); default: no limit",
    "quiet": "no progress lines on stderr",
}


def verify_parser() -> argparse.ArgumentParser:
    text = VERIFY_HELP
    parser = argparse.ArgumentParser(prog="contracts verify", description=text[""], epilog=text["epilog"])
    parser.add_argument("--impl", help=text["impl"])
    parser.add_argument("--format", choices=sorted(FORMATS), default="table", help=text["format"])
    parser.add_argument("-o", "--output", help=text["output"])
    parser.add_argument("--level", choices=LEVELS, default=LEVELS[-1], help=text["level"])
    parser.add_argument("-n", "--workers", help=text["workers"])
    parser.add_argument("--rows", action="append", default=[], metavar="PREFIX", help=text["rows"])
    parser.add_argument("-k", dest="keyword", help=text["keyword"])
    parser.add_argument(
        "--hypothesis-profile", "--profile", dest="profile", default="ci", help=text["profile"]
    )
    parser.add_argument("--pytest-log", help=text["pytest_log"])
    parser.add_argument("--quick", action="store_true", help=text["quick"])
    parser.add_argument("--seed", type=int, help=text["seed"])
    parser.add_argument("--timeout", metavar="SECONDS", help=text["timeout"])
    parser.add_argument("-q", "--quiet", action="store_true", help=text["quiet"])
    return parser


def verify_main(argv: Sequence[str]) -> int:
    arguments = list(argv)
    passthrough: list[str] = []
    if "--" in arguments:
        at = arguments.index("--")
        arguments, passthrough = arguments[:at], arguments[at + 1 :]
    args = verify_parser().parse_args(arguments)
    options = VerifyOptions(
        impl=args.impl,
        profile="quick" if args.quick and args.profile == "ci" else args.profile,
        workers=args.workers,
        rows=list(args.rows),
        keyword=args.keyword,
        progress=not args.quiet,
        pytest_log=args.pytest_log,
        output=args.output,
        quick=args.quick,
        seed=args.seed,
        timeout=args.timeout,
        level=args.level,
        pytest_args=passthrough,
    )
    try:
        report = verify(options)
    except VerifyError as error:
        print(f"contracts verify: error: {error}", file=sys.stderr)
        return error.code
    text = FORMATS[args.format](report)
    if not args.output:
        sys.stdout.write(text)
        return report.exit_code()
    try:
        write_whole(Path(args.output), text.encode())
    except OutputError as error:
        print(
            f"contracts verify: error: the report was not written: {error} (the run's own exit code was "
            f"{report.exit_code()})",
            file=sys.stderr,
        )
        return EXIT_OUTPUT
    print(f"contracts verify: report written to {args.output}", file=sys.stderr)
    return report.exit_code()


KINDS = ("formula", "failure", "contract", "gradient", "rule", "precedence")  # specs/schema.json's row kinds


SPECS_HELP = {
    "": "List the spec rows.",
    "stage": "only this stage (e.g. 03, 05, T)",
    "kind": f"only this kind ({', '.join(KINDS)})",
    "rows": "only ids with this prefix",
    "format": "output format (default: table)",
    "specs": "spec directory (default: $CONTRACTS_SPECS or the package's specs/)",
}


def specs_parser() -> argparse.ArgumentParser:
    text = SPECS_HELP
    parser = argparse.ArgumentParser(prog="contracts specs", description=text[""])
    parser.add_argument("--stage", help=text["stage"])
    parser.add_argument("--kind", choices=KINDS, help=text["kind"])
    parser.add_argument("--rows", action="append", default=[], metavar="PREFIX", help=text["rows"])
    parser.add_argument("--format", choices=SPECS_FORMATS, default="table", help=text["format"])
    parser.add_argument("--specs", help=text["specs"])
    return parser


def specs_main(argv: Sequence[str]) -> int:
    args = specs_parser().parse_args(list(argv))
    directory = Path(args.specs) if args.specs else spec_dir()
    try:
        rows = load_rows(directory)
    except (SpecError, OSError) as error:
        print(f"contracts specs: error: cannot load the spec rows from {directory}: {error}", file=sys.stderr)
        return 2
    prefixes = split_prefixes(args.rows)
    chosen = [
        row
        for row in rows
        if (args.stage is None or row.stage == args.stage)
        and (args.kind is None or row.kind == args.kind)
        and (not prefixes or any(row.id.startswith(prefix) for prefix in prefixes))
    ]
    sys.stdout.write(format_specs(chosen, args.format))
    return 0


def plan_main(argv: Sequence[str]) -> int:
    return plan.plan_main(list(argv))


def matrix_main(argv: Sequence[str]) -> int:
    return matrix.main(list(argv))


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "verify": verify_main,
    "specs": specs_main,
    "plan": plan_main,
    "matrix": matrix_main,
}


# argparse (3.11) scans every option string once per option: 40,000 arguments took half a minute.
# Far more than any command needs, and few enough to parse at once.
MAX_ARGUMENTS = 2001


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or arguments[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if arguments else 2
    if arguments[0] == "--version":
        from importlib.metadata import version

        print(f"contracts {version('contracts')}")
        return 0
    command = COMMANDS.get(arguments[0])
    if command is None:
        print(f"contracts: unknown command {arguments[0]!r}\n\n{USAGE}", file=sys.stderr)
        return 2
    if len(arguments) > MAX_ARGUMENTS:
        print(
            f"contracts {arguments[0]}: error: {len(arguments) - 1} arguments, at most {MAX_ARGUMENTS - 1} "
            "(give many --rows prefixes comma-separated, in one option)",
            file=sys.stderr,
        )
        return 2
    return command(arguments[1:])
