"""mutmut, run and gated: the session, the gate, the sample, the shards."""
