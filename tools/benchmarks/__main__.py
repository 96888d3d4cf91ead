"""`python -m tools.benchmarks`: run every figure and print the ratios (see tools/benchmarks/README.md)."""

from tools.benchmarks.run import main

raise SystemExit(main())
