"""Internal: the message-group sweep (``sweep --groups N``): message groups mapped to queues."""
