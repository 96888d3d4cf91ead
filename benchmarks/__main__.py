"""`python -m benchmarks`: run every figure and print the ratios (see benchmarks/README.md)."""

from benchmarks.run import main

raise SystemExit(main())
