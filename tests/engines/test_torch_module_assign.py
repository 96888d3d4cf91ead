"""torch's module_assign refuses a value of another shape, naming the tensor and both shapes, before
copy_ could broadcast it into every element."""

from __future__ import annotations

import re

import numpy as np
import pytest

from contracts.engines import load_engine

GAIN = "block.norm.gain"


@pytest.mark.parametrize("values", [[1.0, 2.0, 3.0], [1.0]], ids=["one-too-many", "one-too-few"])
def test_torch_assign_refuses_another_shape_naming_both(values: list[float]) -> None:
    """A (3,) or a (1,) into a (2,) gain: ValueError naming the tensor and both shapes; the gain is as
    it was (a (1,) would otherwise be broadcast into both elements)."""
    pytest.importorskip("torch")
    engine = load_engine("torch")
    module = engine.module_block(2, [2, 2], 0.5, False, None, 0.25)
    message = f"module_assign: {GAIN!r} has shape (2,), got ({len(values)},)"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        engine.module_assign(module, GAIN, np.array(values))
    assert [0.25, 0.25] == engine.module_state(module)[GAIN].tolist()
