"""Internal: the reference ports, one folder per kind: Python ports of the Java classes a kind
judges against, each module named after what it ports.

``allocation/`` the consumer's queue allocation strategies, ``producer/`` the producer's queue
selection (the fault strategy, its parts and the selectors), ``grpc/`` the 5.x gRPC clients'
route and balancers. A kind's ports import no other kind's (an import-linter contract); they
are imported by their kind, the sweeps, the fixtures of one kind and the package's public names.

Import the public names from ``pytest_rmq_conformance``.
"""
