"""`contracts verify`: check the engine loads, run pytest over the spec suite's properties/ and golden/
with the verify plugin, and assemble the Report.

pytest runs in a child process (from the suite's directory, with the suite's conftest and pytest.ini and
the chosen hypothesis profile); its own output goes to a log file, progress lines to stderr.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from _pytest.mark.expression import Expression  # pytest's own -k parser: the one the run uses
from hypothesis import settings

import contracts
import contracts.verify.profiles as profiles
from contracts.engines import SHIPPED, selected_name
from contracts.spec import SpecError, SpecRow, load_rows, spec_dir
from contracts.spec.loader import package_dir
from contracts.verify.output import EXIT_OUTPUT, OutputError, unwritable, write_whole
from contracts.verify.plugin import effective
from contracts.verify.records import Record, printable
from contracts.verify.report import LEVELS, Report, Rerun, aggregate, reported_test, unknown_ids
from contracts.verify.untrusted import cleaned, one_line
from pytest_contracts import DEPTH, IMPL, MAX_TEST_SECONDS, SAMPLES, TIMEOUT

SUITE_DIRS = ("properties", "golden")
# the reference implementation's own adapter: on it the reference-only tests are the engine's checks
REFERENCE_TARGET = "contracts.engines.reference:ReferenceEngine"
EXIT_USAGE = 2  # the run could not start: unknown engine, missing extra, no suite
EXIT_PYTEST = 3  # pytest itself failed (internal or usage error): no results
PYTEST_USAGE_ERROR = 4  # pytest.ExitCode.USAGE_ERROR
LOG_TAIL = 40
QUICK_DEPTH = 10_000  # the deep-graph rows' chain under --quick (the spec asks for 10^6)
# draws per statistical check of the init rows under --quick (the seed's 4096): at least the suite's
# FEWEST_SAMPLES (448, contracts.spec_suite.cases.stage07: still rejects a variance half or twice its target)
QUICK_SAMPLES = 512
STOP_GRACE = 10.0  # seconds pytest gets to end after SIGTERM before it is killed
LINGER_LIMIT = 30.0  # seconds pytest gets to end once its results are written (its summary, its exit)
POLL_INTERVAL = 0.1  # seconds between looks at a running child
LOAD_LIMIT = 120.0  # seconds the probe child may take to load the engine (torch: a few)


class VerifyError(Exception):
    """verify cannot run; the message says why and what to do."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class VerifyOptions:
    impl: str | None = None
    profile: str = "ci"
    workers: str | None = None
    rows: list[str] = field(default_factory=list)
    keyword: str | None = None
    progress: bool = True
    pytest_log: str | None = None
    output: str | None = None  # the report file the CLI writes (checked before the suite runs)
    quick: bool = False  # a smaller deep graph (QUICK_DEPTH nodes); the CLI also picks the quick profile
    seed: int | None = None
    timeout: str | None = None  # seconds a test may run before it fails (a hanging engine); None: no limit
    level: str = LEVELS[-1]  # the level the engine is judged at (its rows and those below decide)
    pytest_args: list[str] = field(default_factory=list)


def suite_root() -> Path:
    """The directory that holds the spec suite's properties/ and golden/ (contracts.spec_suite.properties
    and .golden: contracts/spec_suite/ in an installed wheel, tests/ in a clone), found without importing
    them (this process writes nothing there). pytest runs from it, so test ids read properties/...."""
    found = {package_location(f"contracts.spec_suite.{part}").parent for part in SUITE_DIRS}
    if len(found) != 1:  # a broken install: the two halves of the suite in different places
        raise VerifyError(
            f"the spec suite's {' and '.join(SUITE_DIRS)} are not side by side: reinstall contracts"
        )
    return found.pop()


def suite_ini() -> Path:
    """The suite's own pytest.ini (in contracts.spec_suite): its settings whatever project is around."""
    return package_location("contracts.spec_suite") / "pytest.ini"


def package_location(name: str) -> Path:
    """Where a package of this install lives (the spec loader's lookup), or VerifyError saying the
    install is broken."""
    try:
        return package_dir(name)
    except SpecError as error:
        raise VerifyError(str(error)) from None


def package_root() -> Path:
    """The directory the contracts package is imported from: first on the child's PYTHONPATH, so the
    suite runs the same code as this process."""
    return Path(contracts.__file__).resolve().parents[1]


def resolve_engine(name: str) -> dict[str, Any]:
    """What the engine a name or dotted path selects declares (contracts.verify.probe's "engine" and
    "module_root"), read in a child process, or VerifyError saying what is wrong: verify's own process
    runs no adapter code, so none can end it, raise from a declaration late, or patch its report."""
    with tempfile.TemporaryDirectory(prefix="contracts-probe-") as scratch:
        out = Path(scratch) / "declarations.json"
        probe = [sys.executable, "-m", "contracts.verify.probe", name, str(out)]
        try:
            code = subprocess.run(
                probe, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False, timeout=LOAD_LIMIT
            ).returncode
        except subprocess.TimeoutExpired:  # run() has killed the child
            raise VerifyError(
                f"could not start engine {name!r}: loading it did not finish within {LOAD_LIMIT:g} s"
            ) from None
        if not out.is_file():
            raise VerifyError(
                f"could not start engine {name!r}: loading it ended the process (exit code {code}) "
                "before the engine was made"
            )
        described: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    if "error" in described:
        raise VerifyError(one_line(str(described["error"])))
    return {**described, "engine": cleaned(described["engine"])}


def check_impl(impl: str | None) -> None:
    if impl is not None and not impl.strip():
        raise VerifyError(f"--impl is empty: name an engine ({', '.join(SHIPPED)} or pkg.module:Class)")


def check_output(option: str, value: str | None) -> None:
    """An output file verify will write: a file (or none yet) in an existing, writable directory."""
    reason = None if value is None else unwritable(Path(value))
    if reason is not None:
        raise VerifyError(f"{option} {value}: cannot write there ({reason})")


def check_workers(value: str | None) -> None:
    """-n is a count of xdist workers (0: none) or one of xdist's own words for 'one per CPU'."""
    text = None if value is None else value.strip()
    if text is not None and not (text.isdigit() and int(text) <= MAX_WORKERS) and text not in XDIST_AUTO:
        raise VerifyError(f"-n {value!r}: must be a number of workers (0 to {MAX_WORKERS}), auto or logical")


MAX_WORKERS = 512  # more processes than any machine runs usefully; xdist overflows on absurd counts


XDIST_AUTO = ("auto", "logical")


def check_timeout(value: str | None) -> None:
    """--timeout is a finite number of seconds above 0."""
    try:
        seconds = None if value is None else float(value)
    except ValueError:
        seconds = math.nan
    if seconds is not None and not 0 < seconds <= MAX_TEST_SECONDS:
        raise VerifyError(
            f"--timeout {value!r}: must be a number of seconds above 0, at most {MAX_TEST_SECONDS:g}"
        )


def check_keyword(value: str | None) -> None:
    """-k is a pytest match expression: one that pytest cannot parse would end its run as a usage error,
    after collection, and no row could be judged."""
    if value is None:
        return
    try:
        Expression.compile(value)
    except SyntaxError as error:
        raise VerifyError(f"-k {value!r}: not a pytest match expression: {error.msg}") from None


def check_profile(profile: str) -> None:
    if profile not in profiles.PROFILES:
        raise VerifyError(
            f"--hypothesis-profile {profile!r} is not one of the suite's profiles: "
            f"{', '.join(profiles.PROFILES)}"
        )


def check_rows(rows: Sequence[SpecRow], prefixes: Sequence[str], values: Sequence[str] = ()) -> None:
    """--rows given names prefixes (a blank or ',' would select every row), each of which starts a row
    id."""
    if values and not prefixes:
        raise VerifyError(f"--rows {','.join(values)!r}: names no row id prefix (blank)")
    starts = {row.id[:end] for row in rows for end in range(1, len(row.id) + 1)}
    unmatched = [prefix for prefix in prefixes if prefix not in starts]
    if unmatched:
        raise VerifyError(
            f"--rows {','.join(unmatched)}: no spec row id starts with "
            + ("this prefix" if len(unmatched) == 1 else "any of these prefixes")
            + " (every prefix must select a row: a typo would leave its rows out unseen)"
        )


def spec_rows() -> list[SpecRow]:
    directory = spec_dir()
    try:
        return load_rows(directory)
    except (SpecError, OSError) as error:
        raise VerifyError(f"cannot load the spec rows from {directory}: {error}") from None


def chosen(row_id: str, prefixes: Sequence[str]) -> bool:
    return not prefixes or row_id.startswith(tuple(prefixes))


def split_prefixes(values: Sequence[str]) -> list[str]:
    """The prefixes --rows gives (repeated, or comma-separated), each once, in the order given."""
    parts = (part.strip() for value in values for part in value.split(","))
    return list(dict.fromkeys(part for part in parts if part))


def pytest_command(options: VerifyOptions, impl: str, root: Path, out: Path) -> list[str]:
    command = [sys.executable, "-m", "pytest", *SUITE_DIRS]
    command += ["-p", "contracts.verify.plugin", "--contracts-verify-out", str(out)]
    command += ["-c", str(suite_ini()), "--rootdir", str(root)]
    command += [IMPL, impl, f"--hypothesis-profile={options.profile}"]
    command += ["-q", "--tb=short", "--continue-on-collection-errors", "-p", "no:cacheprovider"]
    command += list(run_settings(options))
    if options.progress:
        command.append("--contracts-progress")
    for prefix in split_prefixes(options.rows):
        command += ["--contracts-rows", prefix]
    if options.keyword:
        command += ["-k", options.keyword]
    if options.workers not in (None, "", "0"):
        if importlib.util.find_spec("xdist") is None:
            raise VerifyError("-n needs pytest-xdist, which is not installed: pip install -e '.[test]'")
        command += ["-n", str(options.workers)]
    return [*command, *options.pytest_args]


def run_settings(options: VerifyOptions) -> tuple[str, ...]:
    """pytest options that change what the tests compute (the repro commands repeat them)."""
    found: tuple[str, ...] = ()
    if options.quick:
        found = (DEPTH, str(QUICK_DEPTH), SAMPLES, str(QUICK_SAMPLES))
    if options.seed is not None:
        found += (f"--hypothesis-seed={options.seed}",)
    if options.timeout is not None:
        found += (TIMEOUT, options.timeout.strip())
    return found


def quick_note(options: VerifyOptions) -> str | None:
    if not options.quick:
        return None
    depth = f"deep-graph chain of {QUICK_DEPTH} nodes (the spec asks for 10^6)"
    samples = f"{QUICK_SAMPLES} draws per statistical check (the seed's 4096)"
    return f"{depth}, {samples}, hypothesis profile {options.profile}"


def child_environment(
    root: Path, adapter_root: str | None = None, scratch: Path | None = None
) -> dict[str, str]:
    """The child's environment: the current directory and the adapter's import root first on
    PYTHONPATH (absolute, so the same value reruns a test from anywhere). With a scratch directory,
    the child writes nothing into the suite, which may be a read-only install: no bytecode, and
    hypothesis's files (its caches; a profile's example database) go to the scratch directory."""
    environ = dict(os.environ)
    if scratch is not None:
        environ["PYTHONDONTWRITEBYTECODE"] = "1"
        environ["HYPOTHESIS_STORAGE_DIRECTORY"] = str(scratch / "hypothesis")
    paths: list[str] = []
    for path in (
        str(package_root()),
        os.getcwd(),
        adapter_root,
        *environ.get("PYTHONPATH", "").split(os.pathsep),
    ):
        absolute = str(Path(path).resolve()) if path else None
        if absolute is not None and absolute not in paths:
            paths.append(absolute)
    environ["PYTHONPATH"] = os.pathsep.join(paths)
    environ.pop("PYTEST_ADDOPTS", None)  # the run is configured here, not by the caller's shell
    return environ


class VerifyInterruptedError(VerifyError):
    """SIGTERM or SIGINT arrived while the suite ran: pytest was stopped, temporary files removed."""

    def __init__(self, signum: int) -> None:
        name = signal.Signals(signum).name
        super().__init__(f"interrupted by {name}: stopped pytest, removed temporary files", 128 + signum)


def raise_interrupted(signum: int, _frame: Any) -> None:
    raise VerifyInterruptedError(signum)


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextmanager
def signals_interrupt() -> Iterator[None]:
    """While the suite runs, SIGTERM and SIGINT raise VerifyInterruptedError (so the child is stopped and the
    temporary directory removed on the way out); signal handlers exist only in the main thread."""
    return interrupting()  # mutmut skips decorated functions: the generator is a plain function


def interrupting() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, raise_interrupted) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def stop(child: subprocess.Popen[bytes]) -> None:
    """Terminate the child pytest, then kill it if it does not end within STOP_GRACE seconds."""
    child.terminate()
    try:
        child.wait(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def run_pytest(
    command: Sequence[str],
    root: Path,
    out: Path,
    log: Path,
    progress: bool,
    environ: Mapping[str, str] | None = None,
) -> tuple[int, dict[str, Any] | None]:
    """pytest's exit code and the plugin's results (None if it wrote none). pytest's stdout goes
    to the log; its stderr (the plugin's progress lines, startup errors) to ours when progress is on."""
    with log.open("wb") as stream:
        child = subprocess.Popen(
            list(command),
            cwd=root,
            env=dict(environ if environ is not None else child_environment(root)),
            stdout=stream,
            stderr=None if progress else subprocess.STDOUT,
        )
        try:
            with signals_interrupt():
                code = wait_past_results(child, out, progress)
        finally:
            if child.poll() is None:
                stop(child)
    results: dict[str, Any] | None = json.loads(out.read_bytes()) if out.is_file() else None
    return code, results


def wait_past_results(child: subprocess.Popen[bytes], out: Path, progress: bool) -> int:
    """The child's exit code. Once its results are written, it gets LINGER_LIMIT seconds to end: a
    non-daemon thread an engine started would keep it alive for ever, and the results are complete;
    then it is stopped and the code its results hold is taken."""
    written_at: float | None = None
    while (code := child.poll()) is None:
        now = time.monotonic()
        if written_at is None and out.is_file():
            written_at = now
        if written_at is not None and now - written_at > LINGER_LIMIT:
            stop(child)
            if progress:
                print(
                    f"verify: pytest had not ended {LINGER_LIMIT:g} s after writing its results "
                    "(a thread the engine started?): stopped it",
                    file=sys.stderr,
                )
            return int(json.loads(out.read_bytes())["exitstatus"])
        time.sleep(POLL_INTERVAL)
    return code


def worker_count(value: str | None) -> int:
    """xdist workers as a number: 0 for none, -1 for auto."""
    text = (value or "0").strip()
    return int(text) if text.isdigit() else -1


def keep_log(log: Path, target: Path) -> None:
    """pytest's log, written where --pytest-log asked once the run ended (a full disk there cannot
    reach the run), whole or not at all."""
    try:
        write_whole(target, log.read_bytes())
    except OutputError as error:
        raise VerifyError(f"--pytest-log: {error}", EXIT_OUTPUT) from None


def log_tail(log: Path) -> str:
    lines = log.read_bytes().decode(errors="replace").splitlines()
    return "\n".join(lines[-LOG_TAIL:])


def rerun_of(options: VerifyOptions, impl: str, root: Path, environ: Mapping[str, str]) -> Rerun:
    """How to rerun one test as verify runs it, from any directory (see Rerun)."""
    paths = tuple(filter(None, environ.get("PYTHONPATH", "").split(os.pathsep)))
    extra = (*run_settings(options), "-p", "no:cacheprovider")
    return Rerun(impl, options.profile, str(root), paths, sys.executable, extra)


def check_ran(impl: str, ran: object, pytest_args: Sequence[str]) -> None:
    """The child ran the engine verify named (arguments after -- may not select another), else
    VerifyError: a report of one engine's results under another's name is never written."""
    if ran != impl:
        raise VerifyError(
            f"the suite ran engine {ran!r}, not --impl {impl!r}: the pytest arguments after -- "
            f"({' '.join(pytest_args) or 'none'}) must not select the engine; give it as verify's --impl only"
        )


def profile_ran(asked: str, results: Mapping[str, Any]) -> str:
    """The hypothesis profile the suite ran, as the report names it: the one asked for, or what the
    suite's process says it ran instead (an adapter loaded another profile, or registered the asked
    one again with other settings)."""
    ran, used = results.get("profile"), results.get("settings")
    expected = effective(settings.get_profile(asked))
    if ran == asked and used == expected:
        return asked
    return one_line(f"{ran} (asked for {asked}; the suite's process ran with {used}, not {expected})")


def preflight(options: VerifyOptions) -> tuple[Path, str, dict[str, Any], list[SpecRow], list[str]]:
    """Every check that can fail before the suite runs: a one-line VerifyError, never a late surprise."""
    check_impl(options.impl)
    check_output("--output", options.output)
    check_output("--pytest-log", options.pytest_log)
    check_workers(options.workers)
    check_timeout(options.timeout)
    check_keyword(options.keyword)
    root = suite_root()
    check_profile(options.profile)
    impl = selected_name(options.impl)
    declared = resolve_engine(impl)
    rows = spec_rows()
    prefixes = split_prefixes(options.rows)
    check_rows(rows, prefixes, options.rows)
    return root, impl, declared, rows, with_dtype_check(prefixes, declared["engine"]["dtype"])


# The row whose tests check that an engine computes in the dtype it declares: a declared dtype other than
# float64 makes rows not applicable (its float64_only) and loosens every tolerance, so a run restricted
# by --rows runs this row too; without it, an engine declaring float32 while computing in float64 would
# see those rows n/a on its word alone.
DTYPE_ROW = "T.rule.tolerance"


def with_dtype_check(prefixes: list[str], dtype: str) -> list[str]:
    """The --rows prefixes, with the dtype rule added when the engine declares another dtype than float64."""
    if not prefixes or dtype == "float64" or any(chosen(DTYPE_ROW, [prefix]) for prefix in prefixes):
        return prefixes
    return [*prefixes, DTYPE_ROW]


def verify(options: VerifyOptions) -> Report:
    """Run the suite against the selected engine and build the report (VerifyError if it cannot run)."""
    started = time.monotonic()
    root, impl, declared, rows, prefixes = preflight(options)
    options = replace(options, rows=prefixes)  # the child runs, and the report shows, what was chosen
    with tempfile.TemporaryDirectory(prefix="contracts-verify-") as scratch:
        environ = child_environment(root, declared["module_root"], Path(scratch))
        out = Path(scratch) / "results.json"
        log = Path(scratch) / "pytest.log"
        command = pytest_command(options, impl, root, out)
        code, results = run_pytest(command, root, out, log, options.progress, environ)
        if options.pytest_log:
            keep_log(log, Path(options.pytest_log))
        if results is None or code == PYTEST_USAGE_ERROR:
            # a usage error is pytest refusing its own command line: no row can be charged with it
            what = "a usage error" if code == PYTEST_USAGE_ERROR else "before producing results"
            raise VerifyError(
                f"pytest exited with code {code} ({what}); its output ends with:\n" + log_tail(log),
                EXIT_PYTEST,
            )
    check_ran(impl, results.get("impl"), options.pytest_args)
    records = [printable(Record.from_json(item)) for item in results["tests"]]
    selected_rows = [row for row in rows if chosen(row.id, prefixes)]
    keys = ("title", "level", "category")
    row_like = [
        {"id": r.id, "kind": r.kind, "stage": r.stage, **{k: r[k] for k in keys}} for r in selected_rows
    ]
    engine_is_reference = declared["engine"]["target"] == REFERENCE_TARGET
    rerun = rerun_of(options, impl, root, environ)
    return Report(
        engine=declared["engine"],
        suite=str(root),
        profile=profile_ran(options.profile, results),
        workers=worker_count(options.workers),
        selection={
            "rows": prefixes,
            "keyword": options.keyword,
            "quick": quick_note(options),
            "seed": options.seed,
            "pytest_args": cleaned(list(options.pytest_args)),
        },
        rows=aggregate(row_like, records, rerun, bool(options.keyword), engine_is_reference),
        other_tests=[reported_test(record, rerun) for record in records if not record.spec_ids],
        unknown_ids=unknown_ids((r.id for r in rows), records),
        collection_errors=cleaned(list(results.get("collection_errors", [])), multiline=True),
        pytest_exit_code=code,
        duration=time.monotonic() - started,
        level=options.level,
    )
