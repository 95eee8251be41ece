"""Internal: the allocation sweep (``sweep``): consumer queue allocation on Spark."""
