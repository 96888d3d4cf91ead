"""The spec-mutation sample: whole rows and whole guarded functions.

For a quick run, or a machine that cannot afford the whole (CI runs the whole today), a deterministic
sample: a row (by its id) or a guarded function (dotted) is in it when `drawn` says so for the seed
and percentage. The results record the sample.
"""

from __future__ import annotations

import argparse
import hashlib
import math
from collections.abc import Mapping
from typing import Any

EVERYTHING = 100.0


def drawn(name: str, seed: str, percent: float) -> bool:
    """Whether a row id or function is in the sample: its hash with the seed, as a fraction of 2**64,
    is below the percentage (the same seed and name always draw alike)."""
    digest = hashlib.sha256(f"{seed}\0{name}".encode()).digest()
    return int.from_bytes(digest[:8]) < percent / 100 * 2**64


def taken(name: str, sample: Mapping[str, Any] | None) -> bool:
    """Whether a row id or function is in the recorded sample (no sample: everything is)."""
    if sample is None:
        return True
    return drawn(name, str(sample["seed"]), float(sample["percent"]))


def record(seed: str, percent: float) -> dict[str, Any] | None:
    """The sample as the results record it; None when everything runs."""
    return None if percent >= EVERYTHING else {"seed": seed, "percent": percent}


def percent(text: str) -> float:
    """The --sample option: a percentage in (0, 100]; anything else is refused in one line."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= EVERYTHING:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage in (0, 100]")
    return value
