"""The project's own tests take the suite's hypothesis profiles (registered in one place)."""

from __future__ import annotations

import os

from hypothesis import settings

import contracts.verify.profiles  # noqa: F401  (registers the profiles)

# --hypothesis-profile overrides this; tox 4 renames CI, so tox passes the profile explicitly.
settings.load_profile(os.environ.get("CONTRACTS_HYPOTHESIS_PROFILE", "dev"))
