"""How reports print queues: ``topic@broker: ids``, with names quoted where printing them bare
would let two different queues look alike."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rmq_conformance.kinds.allocation.failures import format_mismatch, short_queues
from pytest_rmq_conformance.model import MessageQueue, shown_name

#: different queues whose old text, ``topic@broker@id`` or ``topic@broker: id``, was the same
SAME_TEXT = [
    pytest.param(MessageQueue("a@b", "c", 0), MessageQueue("a", "b@c", 0), id="at-in-topic-or-broker"),
    pytest.param(MessageQueue("", "a@b", 0), MessageQueue("@a", "b", 0), id="empty-topic"),
    pytest.param(MessageQueue("a@", "b", 0), MessageQueue("a", "@b", 0), id="at-at-either-end"),
    pytest.param(MessageQueue("t", "b: 1; t@b", 0), MessageQueue("t@b: 1; t", "b", 0), id="separators-in-a-name"),
]
#: different queues whose old text looked the same on a terminal
SAME_LOOK = [
    pytest.param(MessageQueue("t", "broker-a", 0), MessageQueue("t", "broker\u200b-a", 0), id="zero-width-space"),
    pytest.param(MessageQueue("t", "b", 0), MessageQueue("t\u2060", "b", 0), id="word-joiner"),
    pytest.param(MessageQueue("t", "\u00e9", 0), MessageQueue("t", "e\u0301", 0), id="combining-mark"),
    pytest.param(MessageQueue("t", "a b", 0), MessageQueue("t", "a\u00a0b", 0), id="no-break-space"),
    pytest.param(MessageQueue("t", "b", 0), MessageQueue("t", "b\x00", 0), id="control-character"),
    pytest.param(MessageQueue("t", "b", 0), MessageQueue("t", "b\ud800", 0), id="lone-surrogate"),
]


def old_text(mq):
    return f"{mq.topic}@{mq.broker_name}@{mq.queue_id}", f"{mq.topic}@{mq.broker_name}: {mq.queue_id}"


@pytest.mark.parametrize("first, second", SAME_TEXT)
def test_queues_that_printed_the_same_now_print_differently(first, second):
    assert first != second and old_text(first) == old_text(second)
    assert short_queues([first]) != short_queues([second])
    assert first.label() != second.label()


@pytest.mark.parametrize("first, second", SAME_LOOK)
def test_invisible_characters_are_escaped(first, second):
    assert short_queues([first]) != short_queues([second])
    assert first.label() != second.label()
    shown = short_queues([second])
    assert shown.isprintable() and shown.isascii(), shown  # the invisible character is written as an escape


def test_the_notation():
    assert short_queues([MessageQueue("TopicTest", "broker-a", q) for q in (0, 1, 2)]) == "TopicTest@broker-a: 0 1 2"
    assert short_queues([MessageQueue("a@b", "", 3)]) == "'a@b'@'': 3"
    assert short_queues([MessageQueue("t", "broker\u200b-a", 0)]) == r"t@'broker\u200b-a': 0"
    assert short_queues([MessageQueue("t", "b\ud800", 0)]) == r"t@'b\ud800': 0"
    assert short_queues([MessageQueue("t", "it's", 0)]) == r"t@'it\'s': 0"
    assert MessageQueue("%RETRY%g", "IDC1@broker-a@", -1).label() == "%RETRY%g@'IDC1@broker-a@'@-1"
    # printable names, whatever their script, stay as they are
    assert short_queues([MessageQueue("主题", "\U0001f600", 0)]) == "主题@\U0001f600: 0"


names = st.text(st.characters(exclude_categories=()), max_size=6)  # lone surrogates too


@given(st.tuples(names, names, st.integers(-3, 3)), st.tuples(names, names, st.integers(-3, 3)))
def test_two_queues_print_alike_only_when_they_are_equal(a, b):
    first, second = MessageQueue(*a), MessageQueue(*b)
    assert (first.label() == second.label()) == (first == second)
    assert (short_queues([first]) == short_queues([second])) == (first == second)


def test_a_bare_name_is_exactly_the_name():
    for name in ["TopicTest", "broker-a", "%DLQ%group", "IDC1", "中", "\U0001f600", "ünï"]:
        assert shown_name(name) == name


def test_a_mismatch_report_uses_the_notation():
    from pytest_rmq_conformance.kinds.allocation.cases import Expected
    from pytest_rmq_conformance.kinds.allocation.replay import Answer, Mismatch

    mq = MessageQueue("a@b", "c", 0)
    mismatch = Mismatch("case", "5.3.3", Expected("cid", queues=(mq,)), Answer(queues=()), "1 missing", (mq,), ())
    assert "    missing: 'a@b'@c: 0" in format_mismatch(mismatch)


def test_a_detail_repeated_in_a_row_is_shown_once_with_its_count():
    from pytest_rmq_conformance.kinds.allocation.failures import format_generated
    from pytest_rmq_conformance.kinds.allocation.scenarios import Scenario

    group = Scenario("AVG", {}, "group", (MessageQueue("t", "b", 0),), ("a@1", "b@1", "c@1"))
    failed = "build: building the strategy failed: RuntimeError: no"
    report = format_generated("AVG breaks coverage", [failed, failed, failed, "gap: 1 queue(s) held by no client"], group, "{}")
    assert report.splitlines()[1:3] == [f"  {failed} (3 times)", "  gap: 1 queue(s) held by no client"]
    # the same words for different callers, apart, stay apart
    apart = format_generated("h", ["currentCID='a'", "    extra:   (none)", "currentCID='b'", "    extra:   (none)"], group, "{}")
    assert apart.splitlines()[1:5] == ["  currentCID='a'", "      extra:   (none)", "  currentCID='b'", "      extra:   (none)"]
