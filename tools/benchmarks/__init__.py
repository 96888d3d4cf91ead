"""Benchmarks: what the contracts cost, measured as ratios side by side in one run.

Run with `python -m tools.benchmarks` (or `python tools/benchmarks/run.py`); `--quick` is a fast smoke run.
Nothing here is a test: pytest collects only tests/ (testpaths), and no benchmark asserts a time.
"""
