"""``MessageQueue``: one queue of a topic on one broker, as the Java client sees it.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter

from pytest_rmq_conformance.javalang import (
    INT_MAX,
    INT_MIN,
    below_supplementary,
    java_int,
    java_sorted,
    java_string_compare,
    java_string_key,
)

__all__ = ["MessageQueue", "java_sorted_queues", "queue_key", "shown_name"]


@dataclass(frozen=True, slots=True, init=False)
class MessageQueue:
    """An immutable, hashable queue that orders and prints exactly like Java's.

    >>> mq = MessageQueue("TopicTest", "broker-a", 3)
    >>> str(mq)
    'MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=3]'

    ``<`` follows ``MessageQueue.compareTo``: topic, then broker name, both in
    Java string order, then ``queue_id`` by 32-bit int subtraction, which
    overflows for ids far apart (then the order is not transitive, just as in
    Java; :func:`java_sorted_queues` reproduces the order Java's sort gives).
    """

    topic: str
    broker_name: str
    queue_id: int
    #: the dataclass's hash of the three fields, computed once (queues are keys of every check's sets)
    _hash: int = field(init=False, repr=False, compare=False)

    def __init__(self, topic: str, broker_name: str, queue_id: int) -> None:
        # the generated __init__ of a frozen dataclass, without its object.__setattr__ calls (a
        # replay makes tens of thousands of queues)
        _set_topic(self, topic)
        _set_broker_name(self, broker_name)
        _set_queue_id(self, queue_id)
        if type(topic) is not str or type(broker_name) is not str or type(queue_id) is not int or not INT_MIN <= queue_id <= INT_MAX:
            self.__post_init__()
        _set_hash(self, hash((topic, broker_name, queue_id)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:
        # rebuilt, not restored: another process hashes strings with another seed
        return MessageQueue, (self.topic, self.broker_name, self.queue_id)

    def __post_init__(self) -> None:
        exact = type(self.topic) is str and type(self.broker_name) is str and type(self.queue_id) is int
        if exact and INT_MIN <= self.queue_id <= INT_MAX:  # the usual case, checked fast
            return
        for name, value in (("topic", self.topic), ("broker_name", self.broker_name)):
            if not isinstance(value, str):
                raise TypeError(f"MessageQueue {name} must be a str, not {type(value).__name__}")
        if not isinstance(self.queue_id, int) or isinstance(self.queue_id, bool):
            raise TypeError(f"MessageQueue queue_id must be an int, not {type(self.queue_id).__name__}")
        if not INT_MIN <= self.queue_id <= INT_MAX:
            raise ValueError(f"MessageQueue queue_id {self.queue_id} is outside Java's int range")

    def __str__(self) -> str:
        return f"MessageQueue [topic={self.topic}, brokerName={self.broker_name}, queueId={self.queue_id}]"

    def label(self) -> str:
        """``topic@broker@id`` as reports print a queue, each name through :func:`shown_name`.

        >>> MessageQueue("TopicTest", "broker-a", 3).label()
        'TopicTest@broker-a@3'
        >>> MessageQueue("a@b", "", 3).label()
        "'a@b'@''@3"
        """
        return f"{shown_name(self.topic)}@{shown_name(self.broker_name)}@{self.queue_id}"

    def compare_to(self, other: MessageQueue) -> int:
        """Java's ``compareTo``: negative, zero or positive."""
        result = java_string_compare(self.topic, other.topic)
        if result:
            return result
        result = java_string_compare(self.broker_name, other.broker_name)
        if result:
            return result
        return java_int(self.queue_id - other.queue_id)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, MessageQueue):
            return NotImplemented
        return self.compare_to(other) < 0

    def __le__(self, other: object) -> bool:
        if not isinstance(other, MessageQueue):
            return NotImplemented
        return self.compare_to(other) <= 0

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, MessageQueue):
            return NotImplemented
        return self.compare_to(other) > 0

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, MessageQueue):
            return NotImplemented
        return self.compare_to(other) >= 0

    @classmethod
    def from_json(cls, triple: Sequence[object]) -> MessageQueue:
        """Build from the ``[topic, brokerName, queueId]`` form of the golden files."""
        if not isinstance(triple, (list, tuple)) or len(triple) != 3:
            raise ValueError(f"a queue is [topic, brokerName, queueId], not {triple!r}")
        topic, broker_name, queue_id = triple
        return cls(topic, broker_name, queue_id)  # type: ignore[arg-type]

    def to_json(self) -> list:
        """The ``[topic, brokerName, queueId]`` form of the golden files."""
        return [self.topic, self.broker_name, self.queue_id]


_set_topic = MessageQueue.__dict__["topic"].__set__
_set_broker_name = MessageQueue.__dict__["broker_name"].__set__
_set_queue_id = MessageQueue.__dict__["queue_id"].__set__
_set_hash = MessageQueue.__dict__["_hash"].__set__


def java_sorted_queues(queues: Iterable[MessageQueue]) -> list[MessageQueue]:
    """A copy of ``queues`` sorted as Java's ``Collections.sort`` sorts them.

    Where no two queue ids are more than ``Integer.MAX_VALUE`` apart, no ``compareTo`` overflows:
    it is then the order of :func:`queue_key`, and any stable sort on that key gives Java's
    order (on the plain fields where no name holds a character above U+FFFF: code points then
    compare as UTF-16 code units do). Otherwise Java's TimSort runs, comparison by comparison,
    and raises ``ValueError`` where Java throws "Comparison method violates its general contract!".
    """
    items = list(queues)
    ids = list(map(_queue_id, items))
    if not ids or max(ids) - min(ids) <= INT_MAX:
        if below_supplementary(set(map(_topic, items)) | set(map(_broker_name, items))):
            return sorted(items, key=_fields)
        return sorted(items, key=queue_key)
    return java_sorted(items, MessageQueue.compare_to)


_queue_id, _topic, _broker_name = attrgetter("queue_id"), attrgetter("topic"), attrgetter("broker_name")
_fields = attrgetter("topic", "broker_name", "queue_id")


def queue_key(mq: MessageQueue) -> tuple[bytes, bytes, int]:
    """The key whose order is ``compareTo``'s while queue ids do not overflow it."""
    return _text_key(mq.topic), _text_key(mq.broker_name), mq.queue_id


_text_key = lru_cache(maxsize=4096)(java_string_key)  # a few topics and brokers, keyed for every queue


#: characters reports never print as they are: controls, format characters (zero-width spaces,
#: direction marks), lone surrogates, private-use and unassigned code points, separators other
#: than the ASCII space, and combining marks (which fuse with the character before them)
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})
#: characters that would make a bare name ambiguous in ``topic@broker: ids; topic@broker: ids``
_SEPARATORS = frozenset("@:;,'\"\\ ")


def _escaped(char: str) -> str:
    if char in "\\'":
        return "\\" + char
    if char == " " or unicodedata.category(char) not in _INVISIBLE:
        return char
    if char in "\t\n\r":
        return repr(char)[1:-1]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown_name(name: str) -> str:
    r"""A topic or broker name as reports print it: bare when that is unambiguous, else quoted.

    A name is quoted (``'...'``, with repr-style escapes) when it is empty, holds ``@`` or
    another separator of the reports (``:;,'"\`` or a space), or holds a character that
    cannot be seen: controls, zero-width and other format characters, lone surrogates,
    unusual spaces, combining marks; those are written as ``\xNN``, ``\uNNNN`` or
    ``\UNNNNNNNN``. Two different names never print alike.

    >>> print(shown_name("broker-a"), shown_name("a@b"), shown_name(""), shown_name("broker\u200b-a"))
    broker-a 'a@b' '' 'broker\u200b-a'
    """
    if name and not any(char in _SEPARATORS or unicodedata.category(char) in _INVISIBLE for char in name):
        return name
    return "'" + "".join(_escaped(char) for char in name) + "'"
