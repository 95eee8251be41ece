"""Internal: the mix sweep (``sweep --mix``): a strategy sharing a consumer group (``--mix --groups N``:
a topic's message groups) with Java clients;
``mix/<mode>.py`` mixes them on the inputs of the sweep ``pipeline/<mode>/``."""
