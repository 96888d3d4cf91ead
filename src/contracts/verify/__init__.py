"""`contracts verify`: the spec suite against any engine, with a report per spec row."""

from contracts.verify.report import Report, RowResult, aggregate, row_status
from contracts.verify.runner import VerifyError, VerifyOptions, verify

__all__ = ["Report", "RowResult", "VerifyError", "VerifyOptions", "aggregate", "row_status", "verify"]
