"""pytest-rmq-conformance: does your RocketMQ queue-allocation strategy compute what Java computes?"""

from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues

__all__ = ["MessageQueue", "java_sorted_queues", "__version__"]
__version__ = "0.1.0"
