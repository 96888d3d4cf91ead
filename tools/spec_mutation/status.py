"""A mutant's verdicts (shared by the plugins, the gate and the summary)."""

KILLED = "killed"  # at least one bound test failed
SURVIVED = "survived"  # every bound test passed
TIMEOUT = "timeout"  # a statement mutant's tests ran past their limit: it is detected, like mutmut's
REFUSED = "refused"  # the project's loader refused the mutated spec file (a generator fault)
NOT_RUN = "not run"  # the row's tests fail on the unchanged spec, or the mutant could not be installed
NO_TESTS = "no tests"  # no test calls the mutated function
SATISFIED = "satisfied"  # a probe extension the implementation already meets: no mutant by definition
