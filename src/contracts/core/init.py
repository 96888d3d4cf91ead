"""InitSpec (Stage 07): the initialization policy, fixed as a creation contract.

distribution (normal | uniform), gain (finite, > 0), seed (exact int >= 0) and role (standard:
Var(W) = gain²/C_in; relu, He: 2·gain²/C_in). A weight's value depends only on the seed and its
logical position (tensor name, row, column), never on creation order or on other layers: the
position is hashed to a uniform u in (0, 1), which the distribution's inverse CDF maps to a value.

The policy and the seed are contracts; the sample variance of a small matrix is not (it is checked
statistically by the tests, with a tolerance derived from the variance of the sample variance).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from statistics import NormalDist

from contracts.core.checks import exact_int, real_number
from contracts.core.frozen import Frozen, set_fields

# (tensor name, row, column) -> raw initial value; called once per weight position.
Initializer = Callable[[str, int, int], object]

DISTRIBUTIONS = ("normal", "uniform")
ROLES = ("standard", "relu")
ROLE_FACTOR = {"standard": 1.0, "relu": 2.0}  # Var(W) = factor * gain² / C_in
STANDARD_NORMAL = NormalDist()
MANTISSA_BITS = 53
SQRT3 = math.sqrt(3.0)  # U(-a, a) has variance a²/3


def unit_uniform(seed: int, tensor: str, row: int, col: int) -> float:
    """A deterministic u in (0, 1) from (seed, tensor, row, col) alone (53 bits, never 0 or 1)."""
    key = f"{seed}\x1f{tensor}\x1f{row}\x1f{col}".encode()
    digest = hashlib.blake2b(key, digest_size=8).digest()
    bits = int.from_bytes(digest) >> (64 - MANTISSA_BITS)  # big-endian (the default)
    return (bits + 0.5) / (1 << MANTISSA_BITS)


class InitSpec(Frozen):
    """distribution, gain, seed and role of a layer's weights; validated at construction."""

    __slots__ = ("distribution", "gain", "role", "seed")

    def __init__(
        self,
        distribution: str = "normal",
        gain: float = 1.0,
        seed: int = 0,
        role: str = "standard",
    ) -> None:
        where = "InitSpec"
        if distribution not in DISTRIBUTIONS:
            raise ValueError(f"{where}: distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")
        number = real_number(gain, where, "gain")
        if number <= 0:
            raise ValueError(f"{where}: gain must be > 0, got {number!r}")
        count = exact_int(seed, where, "seed")
        if count < 0:
            raise ValueError(f"{where}: seed must be >= 0, got {count}")
        if role not in ROLES:  # the arguments in signature order: the first invalid one is named
            raise ValueError(f"{where}: role must be one of {ROLES}, got {role!r}")
        self.distribution: str
        self.gain: float
        self.seed: int
        self.role: str
        set_fields(self, distribution=distribution, gain=number, seed=count, role=role)

    def __repr__(self) -> str:
        return (
            f"InitSpec(distribution={self.distribution!r}, gain={self.gain!r}, "
            f"seed={self.seed!r}, role={self.role!r})"
        )

    def key(self) -> tuple[str, float, int, str]:
        return (self.distribution, self.gain, self.seed, self.role)

    def with_role(self, role: str) -> InitSpec:
        return InitSpec(self.distribution, self.gain, self.seed, role)

    def variance(self, fan_in: int) -> float:
        """The target Var(W): gain²/C_in (standard) or 2·gain²/C_in (relu, He)."""
        return ROLE_FACTOR[self.role] * self.gain**2 / fan_in

    def value(self, tensor: str, row: int, col: int, fan_in: int) -> float:
        """The weight at (tensor, row, col) of a layer with C_in = fan_in: a pure function."""
        u = unit_uniform(self.seed, tensor, row, col)
        scale = math.sqrt(self.variance(fan_in))
        if self.distribution == "normal":
            return scale * STANDARD_NORMAL.inv_cdf(u)
        return scale * SQRT3 * (2.0 * u - 1.0)

    def initializer(self, fan_in: int) -> Initializer:
        """This policy as an initializer for a layer with C_in = fan_in."""

        def draw(tensor: str, row: int, col: int) -> float:
            return self.value(tensor, row, col, fan_in)

        return draw


def checked_init_value(raw: object, where: str, what: str) -> float:
    """An initializer result as a finite float (S07.rule.init-results): a real number, bool rejected,
    converted once, so an int 1 becomes 1.0; a str, bool, None, nan or an int beyond float64 never
    becomes a Value."""
    return real_number(raw, where, what)
