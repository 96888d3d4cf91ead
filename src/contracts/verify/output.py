"""Files a command writes where the user asked (a report, pytest's log): whole or not at all.

A regular file (or a new one) is written to a temporary file beside it and renamed over it, so a disk
that fills, a file-size limit or a read-only directory leaves the old file (or none) and no temporary
file; a device or a FIFO the user names (`-o /dev/stdout`) is written directly. The places are checked
before the run, where they can be; a write that still fails is one line and EXIT_OUTPUT.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

EXIT_OUTPUT = 4  # the run finished, but a file it was asked to write could not be written


class OutputError(Exception):
    """A file the command was asked to write cannot be written there; the message says why."""


def unwritable(path: Path) -> str | None:
    """Why `path` cannot be written, as far as can be told before writing; None if it can be tried."""
    if path.is_dir():
        return "it is a directory"
    parent = path.resolve().parent
    if not parent.is_dir():
        return f"no directory {parent}"
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is not writable"
    if is_regular_or_absent(path) and not os.access(parent, os.W_OK | os.X_OK):
        return f"the directory {parent} is not writable"
    return None


def is_regular_or_absent(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except FileNotFoundError:
        return True


def write_whole(path: Path, data: bytes) -> None:
    """Write data to path, whole or not at all (OutputError naming the path and the reason)."""
    try:
        if is_regular_or_absent(path):
            replace_atomically(path, data)
        else:
            with path.open("wb") as stream:
                stream.write(data)
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None


def mode_for(path: Path) -> int:
    """The file's own permissions if it exists, else what a plain open() would give under the umask."""
    if path.exists():
        return stat.S_IMODE(path.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def replace_atomically(path: Path, data: bytes) -> None:
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=".partial", dir=path.resolve().parent
    )
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode_for(path))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):  # gone if the interruption came after the rename
            os.unlink(temporary)
        raise
