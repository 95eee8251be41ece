"""The rebalance sort: a client sorts ``mqAll`` and ``cidAll`` before it calls its strategy, and
the order decides every share. Each golden case's inputs, sorted by the harness, against what
Java's ``Collections.sort`` gave (``javaSorted``); then generated lists, queue ids at both ends
of Java's int range and names Java orders unlike Python among them (fixed lists of both asked in
every run), against Java's sort as ``java_sorted_queues`` reproduces it:
``MessageQueue.compareTo`` subtracts queue ids in int arithmetic, which overflows for ids far
apart, so Java's order is not the ids' order there (and its sort may throw). Checked for
harnesses that serve ``sort``."""

import json

import pytest
from hypothesis import strategies as st

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.generated.generation import PropertyFailure
from pytest_rmq_conformance.engine.golden.data import GoldenDataError
from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
from pytest_rmq_conformance.javalang import INT_MAX, INT_MIN, java_sorted_strings
from pytest_rmq_conformance.kinds.allocation.cases import ILLEGAL_ARGUMENT, JavaError
from pytest_rmq_conformance.kinds.allocation.draws import ORDER_TRAPS, client_ids
from pytest_rmq_conformance.kinds.allocation.failures import short_queues
from pytest_rmq_conformance.kinds.allocation.family import KIND
from pytest_rmq_conformance.kinds.allocation.protocol import sort
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues
from pytest_rmq_conformance.plugin.state import rmq_state
from pytest_rmq_conformance.plugin.verdicts import fail_sort, run_generated, skip_not_run

#: why the sort is not checked for a harness whose hello says so, once for all cases
NOT_SERVED = 'not implemented: the harness\'s hello says "sort": false'

pytestmark = pytest.mark.rmq_check("sort", kinds=(KIND,))


def pytest_generate_tests(metafunc):
    if "rmq_sort_case" not in metafunc.fixturenames:
        return
    state = rmq_state(metafunc.config)
    hello = state.subject.hello
    if hello is not None and not hello.sort:
        metafunc.parametrize("rmq_sort_case", [NOT_SERVED], ids=["not-served"])
        return
    try:  # a harness may serve other kinds too: their cases have no lists to sort
        cases = [case for case in state.golden.cases() if kinds.kind_of(case.strategy).name == KIND]
    except (GoldenDataError, LookupError):
        cases = []  # test_golden says why
    if not cases:
        metafunc.parametrize("rmq_sort_case", [None], ids=["no-golden-cases"])
        return
    metafunc.parametrize("rmq_sort_case", cases, ids=[case.id for case in cases])


def _expected(items, outcome):
    """Java's sorted list (``None`` for a ``None`` input), or the ``JavaError`` it threw."""
    if items is None or outcome is None or isinstance(outcome, JavaError):
        return outcome
    return [items[i] for i in outcome]


def _problem(name, items, wanted, got, show):
    if isinstance(wanted, JavaError):
        if isinstance(got, Exception):
            return None
        return f"{name}: Java's sort threw {wanted.short_name}({wanted.message!r}); the harness sorted it"
    if isinstance(got, Exception):
        return f"{name}: Java sorted it; the harness's sort failed: {got}"
    if wanted != got:
        first = next((i for i, (a, b) in enumerate(zip(wanted or (), got or ())) if a != b), None)
        if wanted is None or got is None or first is None:
            return f"{name}: Java gave {show(wanted)}, the harness {show(got)}"
        return (
            f"{name}: the orders part at position {first}: Java puts {_one(wanted[first])} there, the harness "
            f"{_one(got[first])}\n    Java:    {show(wanted)}\n    harness: {show(got)}"
        )
    return None


def _one(item):
    return item.label() if isinstance(item, MessageQueue) else repr(item)


def _show_queues(queues):
    return "null" if queues is None else short_queues(queues)


def _show_strings(strings):
    return "null" if strings is None else repr(strings if len(strings) <= 8 else [*strings[:8], "..."])


def _sorting_harness(conformance):
    harness = conformance.harness
    assert harness is not None, "the sort check runs for a strategy behind a harness only"
    if not harness.hello().sort:
        pytest.skip(NOT_SERVED)
    return harness


def test_sort(rmq_sort_case, rmq_conformance, request):
    if rmq_sort_case is None:
        pytest.skip("no golden cases to sort (see test_golden)")
    if rmq_sort_case == NOT_SERVED:
        pytest.skip(NOT_SERVED)
    harness = _sorting_harness(rmq_conformance)
    case = rmq_sort_case
    fault: str | None = None
    try:
        mq_sorted, cid_sorted = sort(harness, case.mq_all, case.cid_all)
    except Unsupported as exc:
        pytest.skip(f"not implemented: {exc}")
    except HarnessGaveUp as exc:
        skip_not_run(request, str(exc))
    except HarnessFault as exc:
        fault = str(exc)  # failed outside this block, so that no traceback chains it
    if fault is not None:
        fail_sort(request, rmq_conformance, case.id, [], fault=fault)
    problems = [
        _problem("mqAll", case.mq_all, _expected(case.mq_all, case.java_sorted_mq_all), mq_sorted, _show_queues),
        _problem("cidAll", case.cid_all, _expected(case.cid_all, case.java_sorted_cid_all), cid_sorted, _show_strings),
    ]
    problems = [problem for problem in problems if problem is not None]
    if problems:
        fail_sort(request, rmq_conformance, case.id, problems)


#: queue ids whose differences overflow an int: Java's compareTo puts INT_MAX before INT_MIN, 0 before INT_MIN, ...
EXTREME_IDS = [INT_MIN, INT_MIN + 1, -(2**30) - 1, -1, 0, 1, 2**30 + 1, INT_MAX - 1, INT_MAX]
#: lists every seed sorts, one topic and broker so that ids decide: a short one (insertion sort),
#: one long enough for Java's merges, and one whose merge throws "Comparison method violates its
#: general contract!" in Java
FIXED_LISTS = [
    [MessageQueue("TopicTest", "broker-a", queue_id) for queue_id in (INT_MAX, 0, INT_MIN, 1, -1, INT_MIN + 1)],
    *(
        [MessageQueue("TopicTest", "broker-a", base + i if base < 0 else base - i) for i, base in enumerate(bases)]
        for bases in ([EXTREME_IDS[i * 5 % 9] for i in range(48)], [EXTREME_IDS[i * 7 % 9] for i in range(40)])
    ),
]


def _java_sort(items, sort):
    try:
        return sort(items)
    except ValueError as exc:  # Java's sort threw: "Comparison method violates its general contract!"
        return JavaError(ILLEGAL_ARGUMENT, str(exc))


@st.composite
def _lists(draw):
    topics = st.sampled_from(["TopicTest", "%RETRY%group"])
    brokers = st.sampled_from(["broker-a", "broker-b"])
    ids = st.one_of(st.sampled_from(EXTREME_IDS), st.integers(INT_MIN, INT_MAX), st.integers(-4, 40))
    queues = draw(st.lists(st.builds(MessageQueue, topics, brokers, ids), max_size=70, unique=True))
    return queues, draw(st.lists(client_ids(), max_size=8))


def test_sort_generated(rmq_conformance, request):
    """Generated lists, queue ids far apart among them, sorted by the harness and by Java's sort."""
    harness = _sorting_harness(rmq_conformance)

    def body(lists):
        mq_all, cid_all = lists
        try:
            mq_sorted, cid_sorted = sort(harness, mq_all, cid_all)
        except HarnessFault as exc:
            raise PropertyFailure(str(exc)) from None
        problems = [
            _problem("mqAll", mq_all, _java_sort(mq_all, java_sorted_queues), mq_sorted, _show_queues),
            _problem("cidAll", cid_all, _java_sort(cid_all, java_sorted_strings), cid_sorted, _show_strings),
        ]
        problems = [problem for problem in problems if problem is not None]
        if problems:
            data = json.dumps({"mqAll": [mq.to_json() for mq in mq_all], "cidAll": cid_all}, ensure_ascii=False)
            raise PropertyFailure(
                "the harness sorts a generated list unlike Java\n  " + "\n  ".join(problems) + f"\n  lists as data: {data}"
            )

    explicit: list[tuple[list[MessageQueue], list[str]]] = [(queues, []) for queues in FIXED_LISTS]
    # names Java orders unlike Python, in Python's order: Java's sort must move them, every run
    traps = sorted(ORDER_TRAPS)
    explicit.append(([MessageQueue("TopicTest", broker, 0) for broker in traps], [f"10.0.0.1@{name}" for name in traps]))
    run_generated(request, rmq_conformance, _lists(), body, explicit=explicit)
