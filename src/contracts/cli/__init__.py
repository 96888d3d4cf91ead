"""The `contracts` command: verify, specs, plan, matrix."""

from contracts.cli.commands import main

__all__ = ["main"]
