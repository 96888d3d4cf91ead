"""`python -m contracts.verify.probe NAME MARKER`: load the engine NAME once, in a process of its own.

verify loads the adapter in its own process to read its declarations; an import or constructor that
ends the process there (os._exit, a native library's exit()) would end verify with that exit code and
no report, so a CI job could read exit 0 as a pass. verify therefore runs this probe first: it writes
MARKER (an empty file) once loading returned, whatever it raised (verify's own load reports that in
one line). No MARKER means loading ended the process.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path

from contracts.engines import load_engine


def main(argv: Sequence[str] | None = None) -> int:
    name, marker = sys.argv[1:] if argv is None else argv  # run with -m: the current directory is on sys.path
    with contextlib.suppress(BaseException), contextlib.redirect_stdout(sys.stderr):
        load_engine(name)
    Path(marker).touch()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
