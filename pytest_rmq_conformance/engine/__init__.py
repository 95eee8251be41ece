"""Everything that checks a strategy: the strategy under test, golden data, calls with time limits,
comparison, invariants, generation and the harness protocol's client. Never imports pytest.

Internal: import the public names from ``pytest_rmq_conformance``.
"""
