"""Shared fixtures of the project's own tests: fake clocks and processes, broken and correct engines."""
