"""Internal: the mix sweep (``sweep --mix``): a strategy sharing a consumer group (``--mix --groups N``:
a topic's message groups) with Java clients."""
