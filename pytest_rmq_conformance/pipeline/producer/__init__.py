"""Internal: the producer sweep (``sweep --producer``): queue selection under broker faults."""
