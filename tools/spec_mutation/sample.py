"""The spec-mutation sample: whole rows and whole guarded functions, drawn like mutmut's sample.

For a quick run, or a machine that cannot afford the whole (CI runs the whole today), a deterministic
sample: a row (by its id) or a function (by `module:qualname`) is in it when
tools.mutation.sample.drawn says so for the seed and percentage. The results record the sample,
so the gate judges only the listed mutants the sample could have met.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from typing import Any

from tools.mutation.sample import drawn

EVERYTHING = 100.0


def key(mutant_id: str, statement: bool) -> str:
    """What is drawn for a mutant: its row id (`ROW:field:...`) or its function (`module:qualname:...`)."""
    row_or_module, _, rest = mutant_id.partition(":")
    return f"{row_or_module}:{rest.partition(':')[0]}" if statement else row_or_module


def taken(name: str, sample: Mapping[str, Any] | None) -> bool:
    """Whether a row id or `module:qualname` is in the recorded sample (no sample: everything is)."""
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
