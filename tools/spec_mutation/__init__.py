"""Spec mutation: prove that the tests read every machine-readable field of every spec row.

Spec mutants change one field of one row (an operator, a constant, an example's value, an
exception type, a message pattern, a probe, a gradient form) and run the row's bound tests against
the unchanged implementation; statement mutants delete or swap the guards mutmut has no operator
for. `python -m tools.spec_mutation` runs both, writes the results and applies the gate.
"""
