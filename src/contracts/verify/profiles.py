"""The one place that registers the hypothesis profiles the spec suite runs under (its conftest and the
project's own tests import it; `contracts verify --hypothesis-profile` accepts these names)."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, Verbosity, settings

# Every profile names its parent explicitly: a profile registered without one inherits whatever
# profile is active at registration time (hypothesis loads its own `ci` profile when CI is set).
DEFAULT = settings.get_profile("default")
settings.register_profile("dev", parent=DEFAULT, max_examples=50, deadline=None)
settings.register_profile(
    "ci",
    parent=DEFAULT,
    max_examples=50,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# Mutation runs: deterministic verdicts, no shrinking (1.6x throughput, same verdicts).
settings.register_profile(
    "mutation",
    parent=settings.get_profile("ci"),
    max_examples=20,
    phases=[Phase.explicit, Phase.generate],
)
# `contracts verify --quick`: a smoke run for slow engines (the report says the run was quick).
settings.register_profile("quick", parent=settings.get_profile("ci"), max_examples=5)
settings.register_profile(
    "thorough", parent=DEFAULT, max_examples=2000, deadline=None, verbosity=Verbosity.normal
)
PROFILES = ("default", "dev", "ci", "mutation", "quick", "thorough")
