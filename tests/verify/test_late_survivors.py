"""Late mutmut survivors of the product: the one-hot's dtype, two joined messages, and what the verify
probe's child process may and may not do to verify's own output."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

import array_api_strict
import numpy as np
import pytest

from contracts.engines import DeclarationError, check_error_families
from contracts.engines.base import Engine
from contracts.spec.functions import array_functions
from contracts.verify.runner import VerifyError, check_rows, resolve_engine

# ---------------------------------------------------------------- the spec formulas' one-hot


def test_numpy_onehot_keeps_the_dtype_of_x() -> None:
    """onehot(t, x) over numpy is float32 for a float32 x: ones and zeros like x, never object arrays."""
    x = np.zeros((2, 3), dtype=np.float32)
    found = array_functions(np)["onehot"](np.asarray([2, 0]), x)
    assert np.dtype(np.float32) == found.dtype
    assert [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]] == found.tolist()


def test_array_api_strict_onehot_is_a_float32_array() -> None:
    """onehot(t, x) over array_api_strict builds ones and zeros like x (a strict namespace takes no None)."""
    xp: Any = array_api_strict
    found = array_functions(xp)["onehot"](xp.asarray([1, 1]), xp.zeros((2, 2), dtype=xp.float32))
    assert xp.float32 == found.dtype
    assert [[0.0, 1.0], [0.0, 1.0]] == np.asarray(found).tolist()


# ---------------------------------------------------------------- messages listing several names


class EngineRefusalError(Exception):
    """An engine's own refusal type."""


class Misnamed(Engine):
    """Maps its refusal onto a family no spec failure row raises."""

    name: ClassVar[str] = "misnamed"
    error_families: ClassVar[dict[type[BaseException], str]] = {EngineRefusalError: "Shape_Error"}


def test_unknown_family_message_lists_the_known_families_comma_separated() -> None:
    """The unknown-family refusal lists every known family, sorted and joined with ', '."""
    with pytest.raises(DeclarationError) as raised:
        check_error_families(Misnamed(), {"ValueError", "ShapeError", "IndexError"})
    assert (
        "misnamed: error_families maps EngineRefusalError onto 'Shape_Error', which no spec failure row "
        "raises (known: IndexError, ShapeError, ValueError)"
    ) == str(raised.value)


def test_blank_rows_message_joins_the_given_values_with_commas() -> None:
    """--rows of several blank values names them joined with ',' (as typed) in the refusal."""
    with pytest.raises(VerifyError) as raised:
        check_rows([], [], ["", " ", ""])
    assert "--rows ', ,': names no row id prefix (blank)" == str(raised.value)


# ---------------------------------------------------------------- the verify probe's child


PRINTS_WHILE_LOADING = (
    "import os\n\nfrom contracts.engines.reference import ReferenceEngine\n\n\n"
    "class Engine(ReferenceEngine):\n    def __init__(self):\n        os.write(1, b'hello from the engine')\n"
)
EXITS_THREE = "import os\n\nos._exit(3)\n"


def test_the_probe_childs_prints_never_reach_verifys_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """An adapter printing while it loads in the probe child writes nothing to verify's own stdout
    (a report may go there), even at the file-descriptor level."""
    (tmp_path / "prints_adapter.py").write_text(PRINTS_WHILE_LOADING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert "prints_adapter:Engine" == resolve_engine("prints_adapter:Engine")["engine"]["impl"]
    assert "" == capfd.readouterr().out


def test_a_probe_child_ending_with_a_code_is_one_verify_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that ends with exit code 3 while loading is a VerifyError naming the code, not a
    CalledProcessError."""
    (tmp_path / "exits_three.py").write_text(EXITS_THREE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    message = (
        "could not start engine 'exits_three:Engine': loading it ended the process (exit code 3) "
        "before the engine was made"
    )
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$"):
        resolve_engine("exits_three:Engine")
