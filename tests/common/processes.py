"""Watching processes a test started (or made its children start) end."""

from __future__ import annotations

import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether the process is still running: gone, or a zombie awaiting its reaper, is not."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def ended_within(pid: int, seconds: float) -> bool:
    """Whether the process stops running within the given seconds (polled every 50 ms)."""
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)
