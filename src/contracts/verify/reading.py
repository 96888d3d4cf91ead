"""Reading a JSON file a user hands a command (a saved report): bounded before it is parsed.

Only a regular file is read (a device such as /dev/zero never ends, a FIFO blocks its reader); at most
`limit` bytes; nesting too deep for the parser and integers too long for Python are refused. Each is
one ReadError line naming what is wrong.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

MAX_REPORT_BYTES = 64 * 1024 * 1024  # a whole-spec report is about 1 MB
CHUNK = 1 << 20  # bytes asked of one read: a read past the limit stops within one chunk of it


class ReadError(Exception):
    """The file cannot be read as a bounded JSON document; the message says why."""


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. The open does not block (a FIFO would wait
    for a writer), and the size is checked on what is read, not on what stat says (a file may grow)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise ReadError(str(error.strerror)) from None  # os.open's errors carry errno and its text
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise ReadError("not a regular file")
        chunks, size = [], 0
        while chunk := os.read(descriptor, CHUNK):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise ReadError(f"larger than {limit} bytes")
        return b"".join(chunks)
    except OSError as error:
        raise ReadError(str(error.strerror)) from None
    finally:
        os.close(descriptor)


def read_json(path: Path, limit: int = MAX_REPORT_BYTES) -> object:
    """A bounded regular file parsed as JSON (UTF-8, RFC 8259); ReadError for anything else."""
    data = read_bounded(path, limit)
    try:
        return json.loads(data)
    except RecursionError:
        raise ReadError("not a JSON report (nested too deeply)") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError, an integer past Python's digit limit
        raise ReadError(f"not a JSON report ({error})") from None
