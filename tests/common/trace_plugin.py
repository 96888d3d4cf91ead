"""A pytest plugin that writes node id -> spec ids of every collected test to $CONTRACTS_TRACE_OUT."""

from __future__ import annotations

import json
import os

import pytest


def pytest_collection_finish(session: pytest.Session) -> None:
    marked = {
        item.nodeid: sorted({str(i) for mark in item.iter_markers("spec") for i in mark.args})
        for item in session.items
    }
    with open(os.environ["CONTRACTS_TRACE_OUT"], "w", encoding="utf-8") as out:
        json.dump(marked, out)
