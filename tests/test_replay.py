"""How an answer is compared with Java's."""

import pytest

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.kinds.allocation.cases import ILLEGAL_ARGUMENT, Expected, JavaError
from pytest_rmq_conformance.kinds.allocation.replay import Answer, call_strategy, compare_answer

A, B, C = (MessageQueue("t", "b", q) for q in range(3))
NPE = JavaError("java.lang.NullPointerException", None)
IAE = JavaError(ILLEGAL_ARGUMENT, "currentCID is empty")


class Returns:
    def __init__(self, value):
        self.value = value

    def allocate(self, *args):
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value


def answer(value):
    return call_strategy(Returns(value), "g", "c", [A, B, C], ["c"])


def verdict(expected, value, strict=True):
    return compare_answer(expected, answer(value), strict_order=strict)


def test_exact_list_conforms_and_order_matters_only_when_strict():
    expected = Expected("c", queues=(A, B))
    assert verdict(expected, [A, B]) is None
    assert verdict(expected, [B, A])[0] == "the same queues as Java, in a different order"
    assert verdict(expected, [B, A], strict=False) is None
    assert verdict(expected, (mq for mq in [A, B])) is None  # any iterable


def test_missing_and_extra_queues_are_named():
    problem, missing, extra = verdict(Expected("c", queues=(A, B)), [B, C])
    assert (missing, extra) == ((A,), (C,))
    assert problem == "1 missing and 1 extra queue(s)"
    assert verdict(Expected("c", queues=(A, B)), [B, C], strict=False)[1:] == ((A,), (C,))


def test_repeats_count_in_strict_mode_only():
    assert verdict(Expected("c", queues=(A,)), [A, A]) is not None
    assert verdict(Expected("c", queues=(A,)), [A, A], strict=False) is None


def test_null_is_empty_for_sets_but_not_for_lists():
    assert verdict(Expected("c"), None) is None
    assert verdict(Expected("c"), []) is not None
    assert verdict(Expected("c"), [], strict=False) is None
    assert verdict(Expected("c", queues=()), None) is not None
    assert verdict(Expected("c", queues=()), None, strict=False) is None
    assert verdict(Expected("c", queues=(A,)), None, strict=False) is not None


def test_illegal_argument_needs_value_error():
    expected = Expected("", error=IAE)
    assert verdict(expected, ValueError("x")) is None
    assert "expected ValueError" in verdict(expected, TypeError("x"))[0]
    assert "expected ValueError, but returned 0 queue(s)" in verdict(expected, [])[0]


def test_other_java_exceptions_need_some_exception():
    expected = Expected("c", error=NPE)
    assert verdict(expected, TypeError("x")) is None
    assert verdict(expected, ValueError("x")) is None
    assert "expected an exception" in verdict(expected, [])[0]


def test_an_exception_where_java_answered_is_reported_with_its_text():
    problem = verdict(Expected("c", queues=(A,)), RuntimeError("boom"))[0]
    assert problem == "Java returned 1 queue(s), but raised RuntimeError: boom"


@pytest.mark.parametrize("value", [[("t", "b", 0)], ["MessageQueue [topic=t, brokerName=b, queueId=0]"], [None]])
def test_wrong_items_are_named(value):
    problem = verdict(Expected("c", queues=(A,)), value)[0]
    assert "where a MessageQueue belongs" in problem


@pytest.mark.parametrize("value", [42, "abc", A, {A: 1}])
def test_answers_that_are_not_lists_are_named(value):
    for expected in (Expected("c", queues=(A,)), Expected("c", error=NPE), Expected("c")):
        problem = verdict(expected, value, strict=False)[0]
        assert f"but returned {type(value).__name__}" in problem and "not a list of MessageQueue" in problem


def test_answer_descriptions():
    assert Answer(queues=(A,)).describe() == "returned 1 queue(s)"
    assert Answer(returned_none=True).describe() == "returned None"
    assert Answer(exception=KeyError("k")).describe() == "raised KeyError: 'k'"


def test_a_factory_that_refuses_gives_each_call_that_exception(golden):
    from pytest_rmq_conformance.kinds.allocation.replay import replay_case

    case = golden.case("pub-AVG-0001-published-example")

    def factory():
        raise ValueError("illegal virtualNodeCnt :-1")

    mismatches = replay_case(factory, case, "5.3.3")
    assert len(mismatches) == len(case.results_for("5.3.3")) == 1
    assert mismatches[0].problem == "Java returned 16 queue(s), but raised ValueError: illegal virtualNodeCnt :-1"
