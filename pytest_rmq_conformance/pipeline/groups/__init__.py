"""Internal: the group sweep (``sweep --groups N``): message groups mapped to queues."""
