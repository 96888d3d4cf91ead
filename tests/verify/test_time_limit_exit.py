"""The time limit's last resort ends the process with its message written: the line reaches stderr
even though the process ends without flushing anything itself."""

from __future__ import annotations

import io
import os
import sys

import pytest

from contracts.verify.time_limit import HUNG_EXIT, end_process


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_the_backstop_message_reaches_stderr_before_the_process_ends() -> None:
    """A forked child whose stderr is a fully buffered pipe calls end_process: the parent reads the
    whole message and the exit status HUNG_EXIT."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: never returns into pytest
        os.close(read)
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(write, "w"), buffer_size=1 << 16))
        end_process("test x hung past its limit: the run ends")
        os._exit(99)  # not reached unless end_process returned
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read().decode()
    _, status = os.waitpid(child, 0)
    assert ("test x hung past its limit: the run ends\n", HUNG_EXIT) == (
        said,
        os.waitstatus_to_exitcode(status),
    )
