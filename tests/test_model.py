"""MessageQueue: value semantics, Java text form and Java order."""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rmq_conformance import MessageQueue, java_sorted_queues
from pytest_rmq_conformance.javalang import INT_MAX, INT_MIN, java_sorted


def test_text_form_is_javas_to_string():
    assert str(MessageQueue("TopicTest", "broker-a", 3)) == "MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=3]"
    assert str(MessageQueue("%RETRY%g", "room@b", -1)).endswith("queueId=-1]")


def test_immutable_hashable_equal_by_value():
    mq = MessageQueue("t", "b", 1)
    assert mq == MessageQueue("t", "b", 1)
    assert len({mq, MessageQueue("t", "b", 1), MessageQueue("t", "b", 2)}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        mq.queue_id = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    "args, error",
    [
        ((None, "b", 1), TypeError),
        (("t", 5, 1), TypeError),
        (("t", "b", "1"), TypeError),
        (("t", "b", True), TypeError),
        (("t", "b", 2**31), ValueError),
    ],
)
def test_rejects_what_java_could_not_hold(args, error):
    with pytest.raises(error):
        MessageQueue(*args)


def test_order_topic_then_broker_then_queue_id():
    queues = [
        MessageQueue("b", "a", 0),
        MessageQueue("a", "b", 0),
        MessageQueue("a", "a", 2),
        MessageQueue("a", "a", 1),
    ]
    assert sorted(queues) == [queues[3], queues[2], queues[1], queues[0]]
    assert java_sorted_queues(queues) == sorted(queues)


def test_order_uses_utf16_code_units():
    emoji, fullwidth = MessageQueue("\U0001F600", "b", 0), MessageQueue("\uFF21", "b", 0)
    assert emoji < fullwidth
    assert java_sorted_queues([fullwidth, emoji]) == [emoji, fullwidth]


def test_queue_id_order_is_int_subtraction_and_overflows():
    low, high = MessageQueue("t", "b", INT_MIN), MessageQueue("t", "b", 1)
    # INT_MIN - 1 overflows to INT_MAX: Java says INT_MIN comes *after* 1.
    assert low.compare_to(high) == INT_MAX
    assert high < low
    assert MessageQueue("t", "b", -5) < MessageQueue("t", "b", 3)


TEXTS = st.sampled_from(["t", "u", "", "\U0001F600", "\uFF21", "\ud800"])


@st.composite
def close_ids(draw):
    """Queues whose ids lie within Integer.MAX_VALUE of each other, anywhere in the int's range."""
    low = draw(st.integers(INT_MIN, INT_MAX))
    width = draw(st.sampled_from([0, 3, 1000, INT_MAX]))
    ids = st.integers(low, min(INT_MAX, low + width))
    return draw(st.lists(st.builds(MessageQueue, TEXTS, TEXTS, ids), max_size=40))


@given(close_ids())
def test_the_key_sort_is_javas_timsort_wherever_it_is_taken(queues):
    """No compareTo can overflow here: the fast path's order is the TimSort port's, object for object."""
    fast = java_sorted_queues(queues)
    timsort = java_sorted(list(queues), MessageQueue.compare_to)
    assert [id(mq) for mq in fast] == [id(mq) for mq in timsort]


def test_ids_further_apart_than_the_int_take_javas_timsort():
    queues = [MessageQueue("t", "b", INT_MIN), MessageQueue("t", "b", 1), MessageQueue("t", "b", 0)]
    assert java_sorted_queues(queues) == java_sorted(queues, MessageQueue.compare_to)
    assert java_sorted_queues(queues) != sorted(queues, key=lambda mq: mq.queue_id)  # the overflow shows


def test_json_form_round_trips():
    mq = MessageQueue("t", "b", 7)
    assert MessageQueue.from_json(mq.to_json()) == mq
    with pytest.raises(ValueError, match="queueId"):
        MessageQueue.from_json(["t", "b"])
