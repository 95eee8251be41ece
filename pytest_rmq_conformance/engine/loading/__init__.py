"""Internal: import the public names from ``pytest_rmq_conformance``."""

