"""Per-stage test data of the spec suite: valid calls, fault injectors, hand-checked cases."""
