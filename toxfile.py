"""tox plugin (loaded by tox from the project root): find pyenv's interpreters.

Python 3.12 and 3.13 live under pyenv on these machines, where tox's interpreter discovery does not
look (only the selected version's shim is on PATH). Putting each installed version's bin directory on
PATH lets `tox` alone find py311, py312 and py313; tox.ini refuses to skip a missing one, so a machine
without one fails naming it instead of printing SKIP and "congratulations".
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tox.plugin import impl

WANTED = ("3.11", "3.12", "3.13")


def version_key(path: Path) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else -1 for part in path.name.split("."))


def pyenv_bin_dirs(root: Path) -> list[str]:
    """The newest installed patch release of each wanted version: its bin directory."""
    found: list[str] = []
    for version in WANTED:
        releases = sorted(root.glob(f"versions/{version}.*/bin"), key=lambda p: version_key(p.parent))
        if releases:
            found.append(str(releases[-1]))
    return found


@impl
def tox_add_core_config(core_conf: Any, state: Any) -> None:
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    extra = [d for d in pyenv_bin_dirs(root) if d not in os.environ.get("PATH", "").split(os.pathsep)]
    if extra:
        os.environ["PATH"] = os.pathsep.join([*extra, os.environ.get("PATH", "")])
