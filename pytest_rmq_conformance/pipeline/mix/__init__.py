"""Internal: the mix sweep (``sweep --mix``): a strategy sharing a group with Java clients."""
