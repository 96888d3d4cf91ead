"""The spec suite: property tests (properties/) and golden tests (golden/) parametrized from the spec
rows, run against any engine by `contracts verify` or `pytest --pyargs contracts.spec_suite
--contracts-impl=ENGINE`. Its helpers: spec_rows (rows as pytest parameters, capabilities, tolerances),
strategies (hypothesis), probes (zero side effects after a refusal), cases/ (per-stage test data)."""
