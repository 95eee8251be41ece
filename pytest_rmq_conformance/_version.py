"""Internal: the package's version, which the modules below the top level read from here (the top
level re-exports it as ``pytest_rmq_conformance.__version__``; the build reads it here too)."""

__version__ = "0.1.0"
