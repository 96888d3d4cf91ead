"""Machine-readable specs: the oracle every test reads (see specs/ and specs/schema.json)."""

from contracts.spec.expr import ExpressionError, evaluate, parse_expression
from contracts.spec.loader import SpecError, SpecRow, load_rows, load_spec_file, spec_dir

__all__ = [
    "ExpressionError",
    "SpecError",
    "SpecRow",
    "evaluate",
    "load_rows",
    "load_spec_file",
    "parse_expression",
    "spec_dir",
]
