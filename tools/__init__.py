"""Development tooling: mutation testing, spec mutation, benchmarks. Not part of the installed package."""
