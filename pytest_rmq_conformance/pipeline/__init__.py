"""Internal: the Spark sweeps behind ``rmq-conformance sweep``, one subpackage a mode; what they share is here."""
