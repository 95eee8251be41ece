"""pytest-rmq-conformance: do your RocketMQ client's load-balancing strategies compute what Java computes?"""

from __future__ import annotations

from typing import Any

__all__ = ["MessageQueue", "java_sorted_queues", "__version__"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # imported on first use: the plugin joins every pytest run, and most never need a queue
    if name in ("MessageQueue", "java_sorted_queues"):
        from pytest_rmq_conformance import model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
