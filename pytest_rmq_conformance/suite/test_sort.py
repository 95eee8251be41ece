"""The rebalance sort: a client sorts ``mqAll`` and ``cidAll`` before it calls its strategy, and
the order decides every share. Each golden case's inputs, sorted by the harness, against what
Java's ``Collections.sort`` gave (``javaSorted``). Checked for harnesses that serve ``sort``."""

import pytest

from pytest_rmq_conformance.engine.golden import GoldenDataError, JavaError
from pytest_rmq_conformance.engine.remote import HarnessFault, HarnessGaveUp, Unsupported
from pytest_rmq_conformance.engine.reports import short_queues
from pytest_rmq_conformance.plugin.state import rmq_state
from pytest_rmq_conformance.plugin.verdicts import skip_not_run

#: why the sort is not checked for a harness whose hello says so, once for all cases
NOT_SERVED = 'not implemented: the harness\'s hello says "sort": false'

pytestmark = pytest.mark.rmq_check("sort")


def pytest_generate_tests(metafunc):
    if "rmq_sort_case" not in metafunc.fixturenames:
        return
    conformance = rmq_state(metafunc.config).conformance
    hello = conformance.subject.hello
    if hello is not None and not hello.sort:
        metafunc.parametrize("rmq_sort_case", [NOT_SERVED], ids=["not-served"])
        return
    try:
        cases = conformance.golden_cases()
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
            f"{name}: the orders part at position {first}: Java puts {wanted[first]!r} there, the harness "
            f"{got[first]!r}\n    Java:    {show(wanted)}\n    harness: {show(got)}"
        )
    return None


def _show_queues(queues):
    return "null" if queues is None else short_queues(queues)


def _show_strings(strings):
    return "null" if strings is None else repr(strings if len(strings) <= 8 else [*strings[:8], "..."])


def test_sort(rmq_sort_case, rmq_conformance, request):
    if rmq_sort_case is None:
        pytest.skip("no golden cases to sort (see test_golden)")
    if rmq_sort_case == NOT_SERVED:
        pytest.skip(NOT_SERVED)
    harness = rmq_conformance.harness
    assert harness is not None, "the sort check runs for a strategy behind a harness only"
    case = rmq_sort_case
    try:
        mq_sorted, cid_sorted = harness.sort(case.mq_all, case.cid_all)
    except Unsupported as exc:
        pytest.skip(f"not implemented: {exc}")
    except HarnessGaveUp as exc:
        skip_not_run(request, str(exc))
    except HarnessFault as exc:
        pytest.fail(str(exc), pytrace=False)
    problems = [
        _problem("mqAll", case.mq_all, _expected(case.mq_all, case.java_sorted_mq_all), mq_sorted, _show_queues),
        _problem("cidAll", case.cid_all, _expected(case.cid_all, case.java_sorted_cid_all), cid_sorted, _show_strings),
    ]
    problems = [problem for problem in problems if problem is not None]
    if problems:
        pytest.fail(f"{case.id}: the harness sorts unlike Java\n  " + "\n  ".join(problems), pytrace=False)
