"""Replay golden cases against a strategy and say where its answers differ from Java's.

Each call gets fresh copies of ``mq_all`` and ``cid_all`` (so one call cannot
disturb the next, and a strategy that modifies them is caught) and, through
``factory``, a fresh strategy, as the Java harness did.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice
from operator import is_
from typing import Any, NamedTuple

from pytest_rmq_conformance.engine.divergence import ERROR_BEHAVIOUR, FAULT, WRONG_QUEUES, worst
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout, StrategyExit, call_with_timeout, time_limits
from pytest_rmq_conformance.kinds.allocation.cases import Expected, GoldenCase
from pytest_rmq_conformance.model import MessageQueue

__all__ = ["Answer", "Mismatch", "classify", "impact_of", "ANSWER_SLACK", "call_strategy", "read_answer", "item_problem", "answer_problem", "answer_key", "compare_answer", "replay_case"]

#: items an answer may hold beyond the queues of mqAll (duplicates, a CONFIG strategy's own list);
#: a longer answer is a fault, and is not read further
ANSWER_SLACK = 1024


class Answer(NamedTuple):
    """What a strategy did for one caller: returned queues, returned ``None``, or raised (a
    named tuple: one is built for every call)."""

    queues: tuple[Any, ...] | None = None
    exception: BaseException | None = None
    returned_none: bool = False
    wrong_type: str | None = None  # what it returned when that was not a list at all
    fault: str | None = None  # wrong whatever Java answered: a hang, modified arguments

    def describe(self) -> str:
        if self.fault is not None:
            return self.fault
        if self.wrong_type is not None:
            return f"returned {self.wrong_type}"
        if self.exception is not None:
            return f"raised {type(self.exception).__name__}: {self.exception}"
        if self.returned_none:
            return "returned None"
        return f"returned {len(self.queues or ())} queue(s)"


@dataclass(frozen=True)
class Mismatch:
    """One caller whose answer differs from Java's."""

    case_id: str
    run: str
    expected: Expected
    answer: Answer
    problem: str
    missing: tuple[MessageQueue, ...] = ()
    extra: tuple[MessageQueue, ...] = ()

    @property
    def raised(self) -> BaseException | None:
        """What the strategy raised, if it did (its traceback is shown)."""
        return self.answer.exception

    def __str__(self) -> str:
        return f"{self.case_id} @ {self.run}, currentCID={self.expected.current_cid!r}: {self.problem}"


def classify(mismatch: Mismatch, cid_all: Sequence[str] | None) -> str:
    """How bad one caller's divergence is (:mod:`~pytest_rmq_conformance.engine.divergence`), in a
    group whose members are ``cid_all``: wrong queues for a member Java gave queues."""
    if mismatch.answer.fault is not None:
        return FAULT
    caller = mismatch.expected.current_cid
    member = caller is not None and cid_all is not None and caller in cid_all
    return WRONG_QUEUES if member and mismatch.expected.kind == "queues" else ERROR_BEHAVIOUR


def impact_of(mismatches: Sequence[Mismatch], cid_all: Sequence[str] | None) -> str | None:
    """The worst class of ``mismatches`` (``None`` for none)."""
    return worst(classify(mismatch, cid_all) for mismatch in mismatches)


def call_strategy(
    strategy: Any,
    consumer_group,
    current_cid,
    mq_all,
    cid_all,
    *,
    timeout: float | None = None,
    copy_lists: bool = True,
) -> Answer:
    """Call ``strategy.allocate`` and capture what it did.

    The strategy gets fresh list copies of ``mq_all`` and ``cid_all``, or,
    with ``copy_lists=False``, the very objects given. ``timeout`` limits the
    call (seconds); a strategy that modifies the lists it was given is caught
    either way.
    """
    mq_before = None if mq_all is None else tuple(mq_all)
    cid_before = None if cid_all is None else tuple(cid_all)
    if copy_lists:
        mq_arg = None if mq_all is None else list(mq_all)
        cid_arg = None if cid_all is None else list(cid_all)
    else:
        mq_arg, cid_arg = mq_all, cid_all
    try:
        result = call_with_timeout(partial(strategy.allocate, consumer_group, current_cid, mq_arg, cid_arg), timeout)
    except CallTimeout as exc:
        return Answer(exception=exc, fault=f"did not return: {exc} (--rmq-timeout)")
    except StrategyExit as exc:
        return Answer(fault=str(exc))
    except Exception as exc:  # a strategy's failure is an answer to compare, not a crash
        result = exc
    for name, given, after in (("mq_all", mq_before, mq_arg), ("cid_all", cid_before, cid_arg)):
        if after is not None and tuple(after) != given:
            return Answer(fault=f"modified its argument {name} (a strategy must not change the lists it is given)")
    if isinstance(result, Exception):
        return Answer(exception=result)
    return read_answer(result, mq_all)


def read_answer(result: Any, mq_all: Sequence | None) -> Answer:
    """What ``allocate`` returned, as an :class:`Answer`: read once, as Java's rebalance reads
    the List (a generator will do), and never past :data:`ANSWER_SLACK` items beyond ``mq_all``."""
    if result is None:
        return Answer(returned_none=True)
    if type(result) is list and len(result) <= len(mq_all or ()) + ANSWER_SLACK:  # the usual answer
        return Answer(queues=tuple(result))
    if not isinstance(result, (str, bytes, MessageQueue, dict)):
        limit = len(mq_all or ()) + ANSWER_SLACK
        try:
            queues = tuple(islice(iter(result), limit + 1))
        except Exception:  # not iterable, or its iteration fails
            pass
        else:
            if len(queues) > limit:
                return Answer(
                    fault=f"returned more than {limit} items for the {len(mq_all or ())} queue(s) of mqAll "
                    f"({type(result).__name__}; read no further): an answer holds queues of mqAll, "
                    "or a CONFIG strategy's own short list"
                )
            return Answer(queues=queues)
    return Answer(wrong_type=f"{type(result).__name__} {result!r:.80}, not a list of MessageQueue")


def item_problem(queues: Sequence[Any]) -> str | None:
    """What is wrong with the first item of an answer that is not a plain :class:`MessageQueue`, if any."""
    if set(map(type, queues)) <= {MessageQueue}:  # the usual answer, read at C speed
        return None
    for position, item in enumerate(queues):
        if type(item) is MessageQueue:
            continue
        if isinstance(item, MessageQueue):
            return (
                f"returned a {type(item).__name__} (a subclass of MessageQueue) at position {position}: "
                "Java's MessageQueue.equals compares classes, so it is never the queue Java returns"
            )
        return f"returned {type(item).__name__} {item!r:.60} at position {position} where a MessageQueue belongs"
    return None


def answer_problem(answer: Answer) -> tuple[str, str] | None:
    """``(kind, sentence)`` when ``answer`` is not a list of queues (``None`` counts as empty), else ``None``."""
    if answer.fault is not None:
        return ("fault", answer.fault)
    if answer.wrong_type is not None:
        return ("wrong-type", answer.describe())
    if answer.exception is not None:
        return ("exception", answer.describe())
    wrong = item_problem(answer.queues or ())
    return None if wrong is None else ("wrong-type", wrong)


def answer_key(answer: Answer, strict_order: bool = False) -> list:
    """``answer`` as JSON-able data that compares equal exactly when two answers are the same.

    Queues compare as a set (``None`` as empty) unless ``strict_order``;
    exceptions by their class name.
    """
    problem = answer_problem(answer)
    if answer.exception is not None and answer.fault is None:
        return ["raises", type(answer.exception).__name__]
    if problem is not None:
        return [problem[0], problem[1]]
    if answer.returned_none and strict_order:
        return ["null"]
    queues = [mq.to_json() for mq in answer.queues or ()]
    return ["queues", queues if strict_order else sorted(queues, key=repr)]


def _exception_problem(expected: Expected, answer: Answer) -> str | None:
    error = expected.error
    assert error is not None
    if answer.exception is None:
        wanted = "ValueError" if error.illegal_argument else "an exception"
        return f"Java threw {error.short_name}({error.message!r}); expected {wanted}, but {answer.describe()}"
    if error.illegal_argument and not isinstance(answer.exception, ValueError):
        return (
            f"Java threw IllegalArgumentException({error.message!r}); expected ValueError, "
            f"but {answer.describe()}"
        )
    return None


def _multiset_difference(left: Collection, right: Collection) -> tuple[Any, ...]:
    remaining = list(right)
    out = []
    for item in left:
        if item in remaining:
            remaining.remove(item)
        else:
            out.append(item)
    return tuple(out)


def compare_answer(
    expected: Expected, answer: Answer, *, strict_order: bool = True, mq_all: Collection | None = None
) -> tuple[str, tuple, tuple] | None:
    """``None`` when ``answer`` conforms, else ``(problem, missing, extra)``.

    ``strict_order`` compares lists exactly; otherwise answers compare as
    sets, the way RocketMQ's rebalance uses them (``None`` counts as empty).
    An expected IllegalArgumentException needs a ``ValueError``; any other
    Java exception needs some exception. Given ``mq_all``, the problem says how
    many extra queues are not even among those.
    """
    verdict = _compare(expected, answer, strict_order)
    if verdict is None or mq_all is None or not verdict[2]:
        return verdict
    known = set(mq_all)
    strangers = [mq for mq in verdict[2] if mq not in known]
    if not strangers:
        return verdict
    return (f"{verdict[0]}, {len(strangers)} of them not in mqAll (e.g. {strangers[0]})", verdict[1], verdict[2])


def _compare(expected: Expected, answer: Answer, strict_order: bool) -> tuple[str, tuple, tuple] | None:
    got, java = answer.queues, expected.queues
    if got is not None and java is not None and len(got) == len(java) and all(map(is_, got, java)):
        return None  # the very queues Java returned, in its order (the usual answer, checked in C)
    if answer.fault is not None:
        return (answer.fault, (), ())
    if answer.wrong_type is not None:
        return (f"Java returned {_describe_expected(expected)}, but {answer.describe()}", (), ())
    if expected.kind == "error":
        problem = _exception_problem(expected, answer)
        return None if problem is None else (problem, (), ())
    if answer.exception is not None:
        return (f"Java returned {_describe_expected(expected)}, but {answer.describe()}", (), ())
    if expected.kind == "null" or answer.returned_none:
        if expected.kind == "null" and answer.returned_none:
            return None
        if not strict_order and not (expected.queues or answer.queues):
            return None  # null and [] mean the same to the rebalance
        return (f"Java returned {_describe_expected(expected)}, but {answer.describe()}", (), ())
    actual = answer.queues or ()
    wrong = item_problem(actual)
    if wrong is not None:
        return (wrong, (), ())
    wanted = expected.queues or ()
    if strict_order:
        if tuple(actual) == tuple(wanted):
            return None
        missing, extra = _multiset_difference(wanted, actual), _multiset_difference(actual, wanted)
        if not missing and not extra:
            return ("the same queues as Java, in a different order", (), ())
        return (f"{len(missing)} missing and {len(extra)} extra queue(s)", missing, extra)
    actual_set, wanted_set = set(actual), set(wanted)
    if actual_set == wanted_set:
        return None
    missing = tuple(mq for mq in dict.fromkeys(wanted) if mq not in actual_set)
    extra = tuple(mq for mq in dict.fromkeys(actual) if mq not in wanted_set)
    return (f"{len(missing)} missing and {len(extra)} extra queue(s)", missing, extra)


def _describe_expected(expected: Expected) -> str:
    if expected.kind == "null":
        return "null"
    return f"{len(expected.queues or ())} queue(s)"


def replay_case(
    factory: Callable[[], Any],
    case: GoldenCase,
    run: str,
    *,
    strict_order: bool = True,
    timeout: float | None = None,
) -> list[Mismatch]:
    """Replay every caller of ``case`` for ``run``; the mismatches, in the order tried.

    A call that overruns ``timeout`` ends the replay of the case there.
    """
    answers = []
    with time_limits():
        for expected in case.results_for(run):
            answers.append(_answer(factory, case, expected, timeout))
            if isinstance(answers[-1].exception, CallTimeout):
                break
    return compare_answers(case, run, case.results_for(run), answers, strict_order=strict_order)


def compare_answers(
    case: GoldenCase, run: str, expected: Sequence[Expected], answers: Sequence[Answer], *, strict_order: bool = True
) -> list[Mismatch]:
    """The mismatches of ``answers``, given in the order of the ``expected`` results (possibly fewer)."""
    mismatches = []
    for wanted, answer in zip(expected, answers):
        verdict = compare_answer(wanted, answer, strict_order=strict_order, mq_all=case.mq_all)
        if verdict is not None:
            problem, missing, extra = verdict
            mismatches.append(Mismatch(case.id, run, wanted, answer, problem, missing, extra))
    return mismatches


def _answer(factory: Callable[[], Any], case: GoldenCase, expected: Expected, timeout: float | None) -> Answer:
    """One caller's answer: the strategy built, then asked."""
    try:
        strategy = factory()
    except Exception as exc:  # Java built a strategy per call too: a refusing constructor is that call's answer
        return Answer(exception=exc)
    return call_strategy(strategy, case.consumer_group, expected.current_cid, case.mq_all, case.cid_all, timeout=timeout)

