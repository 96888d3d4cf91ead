"""An argparse parser as plain data, so a test states a command's whole option table in one literal."""

from __future__ import annotations

import argparse
from typing import Any


def described(parser: argparse.ArgumentParser) -> list[tuple[Any, ...]]:
    """Each action after --help (sub-commands apart): flags, destination, action, default, type, nargs,
    required, choices, metavar and help."""
    return [
        (
            action.option_strings,
            action.dest,
            type(action).__name__,
            action.default,
            getattr(action.type, "__name__", action.type),
            action.nargs,
            action.required,
            action.choices,
            action.metavar,
            action.help,
        )
        for action in parser._actions[1:]
        if not isinstance(action, argparse._SubParsersAction)
    ]


def subcommands(parser: argparse.ArgumentParser) -> tuple[str | None, bool, dict[str, Any]]:
    """The sub-command action's destination, whether one is required, and each name's help and parser."""
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {choice.dest: choice.help for choice in action._choices_actions}
    return action.dest, action.required, {name: (helps[name], sub) for name, sub in action.choices.items()}
