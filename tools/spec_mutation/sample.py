"""The spec-mutation sample and shards: whole rows and whole guarded functions.

For a quick run, or a machine that cannot afford the whole (CI runs the whole today), a deterministic
sample: a row (by its id) or a guarded function (dotted) is in it when `drawn` says so for the seed
and percentage. A shard (I of N, for a fan-out over N jobs) takes the names whose hash falls to it.
The results record both.
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


def in_shard(name: str, index: int, count: int) -> bool:
    """Whether a row id or function belongs to shard index (1-based) of count: its hash modulo count.
    Every name is in exactly one shard."""
    digest = hashlib.sha256(f"shard\0{name}".encode()).digest()
    return int.from_bytes(digest[:8]) % count == index - 1


def taken(name: str, sample: Mapping[str, Any] | None) -> bool:
    """Whether a row id or function is in the recorded sample and shard (none: everything is)."""
    if sample is None:
        return True
    index, count = sample.get("shard", (1, 1))
    return drawn(name, str(sample["seed"]), float(sample["percent"])) and in_shard(name, index, count)


def record(seed: str, percent: float, shard: tuple[int, int] = (1, 1)) -> dict[str, Any] | None:
    """The sample as the results record it; None when everything runs."""
    if percent >= EVERYTHING and shard == (1, 1):
        return None
    return {"seed": seed, "percent": percent, **({"shard": list(shard)} if shard != (1, 1) else {})}


def shard(text: str) -> tuple[int, int]:
    """The --shard option: I/N with 1 <= I <= N; anything else is refused in one line."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a shard I/N with 1 <= I <= N")
    return int(index), int(count)


def percent(text: str) -> float:
    """The --sample option: a percentage in (0, 100]; anything else is refused in one line."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= EVERYTHING:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage in (0, 100]")
    return value
