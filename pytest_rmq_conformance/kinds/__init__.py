"""The kinds of strategy under test, one folder each, each registering its
:class:`~pytest_rmq_conformance.engine.kinds.Kind` record and its families when imported:
:mod:`.allocation` (consumer queue allocation). Kinds never import one another.

Internal: import the public names from ``pytest_rmq_conformance``.
"""
