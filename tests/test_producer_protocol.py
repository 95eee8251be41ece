"""The harness protocol's producer additions (issue 34, item 10): a select call answered
``notRun``, numbers of a client's own state wider than Java's, and a fault strategy that
declares it has no latency fault tolerance, over a harness and in this process alike.

The harnesses are ``producer_protocol_twins.py``: the built-in harness's answers, one thing changed."""

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from producer_protocol_twins import LONGEST

from pytest_rmq_conformance.engine.divergence import COUNTER_DRIFT, WRONG_QUEUES
from pytest_rmq_conformance.engine.generated.generation import check_examples
from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.engine.loading.subject import Subject
from pytest_rmq_conformance.engine.protocol.client import Harness, HarnessFault
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.engine.settings import Settings
from pytest_rmq_conformance.kinds.producer.declared import hello_says, latency_fault_tolerance, turns_latency_on
from pytest_rmq_conformance.kinds.producer.draws import traces
from pytest_rmq_conformance.kinds.producer.generated import reference_check
from pytest_rmq_conformance.kinds.producer.golden import replay

TWINS = Path(__file__).with_name("producer_protocol_twins.py")
#: a hash-selector case with calls over more than 65,536 queues among others
LONG_LIST_CASE = "pub-SELECTOR_HASH-0017-min-value"
#: a trace whose updates leave fault items (latency on), and one that never turns latency on
UPDATING_TRACE = "pub-FAULT_STRATEGY-0002-spec-example"


def _golden():
    return load_golden(golden_dir() / "producer", validate=False)


def _subject(spec, release="5.3.3", **options):
    subject = Subject(Settings(spec=spec, origin="test", version=release, seed=1, **options))
    subject.load()
    assert subject.load_error is None, subject.load_error
    return subject


def _twin_harness(mode, release="5.3.3"):
    return _subject(f"exec:{sys.executable} {TWINS} {mode}", release)


def _ask(subject, case_id, release="5.3.3"):
    try:
        return replay(subject, _golden().case(case_id), SimpleNamespace(id=release))
    finally:
        subject.harness.stop()


# -- notRun ----------------------------------------------------------------------------


def test_calls_answered_not_run_make_the_case_not_run_never_passed():
    case = _golden().case(LONG_LIST_CASE)
    long = [index for index, count in enumerate(case.queue_counts) if count > LONGEST]
    assert long and len(long) < len(case.queue_counts)
    subject = _twin_harness("not-run")
    outcome = _ask(subject, LONG_LIST_CASE)
    assert not outcome.passed and outcome.not_run and outcome.mismatches == () and outcome.error is None
    assert outcome.skipped == (
        f"not run: call {long[0]} (n={case.queue_counts[long[0]]}) of {len(case.queue_counts)}, answered notRun by the harness: "
        f"this client cannot build a list of {case.queue_counts[long[0]]} queues; the other {len(case.queue_counts) - 1} agree with Java"
    )
    assert subject.harness.faults == 0


def test_a_matrix_cell_of_cases_not_run_says_why():
    from pytest_rmq_conformance.matrix.cells import _Cell

    cell = _Cell("SELECTOR_HASH", "5.3.3")
    cell.golden(_ask(_twin_harness("not-run"), LONG_LIST_CASE), Settings())
    shown = cell.as_json()
    assert (shown["status"], shown["golden"]["notRun"]) == ("not-run", 1)
    assert shown["reason"].startswith("1 case(s) not run, the first: call 8 (n=65537) of 9, answered notRun by the harness")


def test_a_wrong_queue_on_a_call_that_was_made_fails_the_case_beside_calls_not_run():
    outcome = _ask(_twin_harness("not-run-wrong"), LONG_LIST_CASE)
    assert not outcome.not_run and outcome.skipped is None
    assert outcome.divergence_class == WRONG_QUEUES, outcome


@pytest.mark.parametrize("mode, passes", [("not-run", True), ("not-run-wrong", False)])
def test_a_generated_example_with_calls_not_run_does_not_count_and_a_wrong_queue_beside_them_fails(mode, passes):
    """Seed 1, calls over more than 16 queues not made: the check judges the rest."""
    subject = _subject(f"exec:{sys.executable} {TWINS} {mode} 16", examples=20, shrink_time=1.0).for_family("SELECTOR_HASH")
    check = reference_check(subject)
    try:
        result = check_examples(subject, check.examples, check.body, explicit=check.explicit)
    finally:
        subject.harness.stop()
    assert (result.report is None) == passes, result.report
    assert subject.harness.faults == 0
    if not passes:
        assert check.classify() == WRONG_QUEUES


def test_a_not_run_case_is_counted_and_shown_in_the_summary(pytester):
    """Calls a harness answers notRun are a limit it declares: counted, never passed, and the run is
    judged by the cases it did answer (alone, the case judges nothing: the run fails)."""
    harness = f"--rmq-strategy=exec:{sys.executable} {TWINS} not-run"
    alone = pytester.runpytest("-p", "no:cacheprovider", "--rmq-checks=golden", harness, f"--rmq-case={LONG_LIST_CASE}")
    assert alone.ret == pytest.ExitCode.TESTS_FAILED
    alone.stdout.fnmatch_lines(["rmq-conformance: no golden case was judged against Java: all 1 asked were skipped (not run: call 8 *"])
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-checks=golden", harness,
                                f"--rmq-case={LONG_LIST_CASE}", "--rmq-case=pub-SELECTOR_HASH-0001-string", "-rs")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["skipped"] == 1 and result.parseoutcomes()["passed"] == 1
    result.stdout.fnmatch_lines([
        "*by impact: 1 not run",
        f"*not run: 1 test(s), *{LONG_LIST_CASE}*: call 8 (n=65537) of 9, answered notRun by the harness: *65537 queues*",
    ])


# -- numbers wider than Java's -----------------------------------------------------------


def test_a_number_wider_than_javas_is_that_cases_divergence_naming_the_field_not_a_harness_fault():
    subject = _twin_harness("wide-item")
    outcome = _ask(subject, UPDATING_TRACE)
    assert outcome.error is None and outcome.divergence_class == COUNTER_DRIFT, outcome
    assert "fault item startTimestamp=18446744073709551615, Java's startTimestamp=" in outcome.mismatches[0].problem
    assert (subject.harness.faults, subject.harness.starts) == (0, 1)


def test_a_counter_wider_than_javas_is_judged_by_the_picks_it_leads_to():
    """Java's plus 2^32 once: the same low 31 bits, and the next step's counter is Java's again,
    so no pick can tell; the harness is asked nothing more, and the case passes."""
    subject = _twin_harness("wide-counter")
    outcome = _ask(subject, UPDATING_TRACE)
    assert outcome.passed, outcome
    assert (subject.harness.faults, subject.harness.starts) == (0, 1)


def test_the_same_answers_in_javas_range_pass():
    """The changes are the twins' only difference from the built-in harness."""
    assert _ask(_twin_harness("plain"), UPDATING_TRACE).passed


# -- no latency fault tolerance ----------------------------------------------------------


def _by_latency(release):
    cases = [case for case in _golden().by_strategy("FAULT_STRATEGY") if any(release in group.runs for group in case.expect)]
    off = [case for case in cases if not turns_latency_on(case)]
    assert off and len(off) < len(cases)
    return cases, off


def test_a_strategy_without_latency_fault_tolerance_is_judged_on_the_golden_traces_that_never_turn_it_on():
    """The twins are 5.3.3's port (a user's class is built with ``clock=`` alone)."""
    release = "5.3.3"
    cases, off = _by_latency(release)
    run = SimpleNamespace(id=release)
    right, wrong = (_subject(f"producer_protocol_twins:{name}", release) for name in ("NoLatencyTolerance", "NoLatencyToleranceOneAhead"))
    outcomes = [replay(right, case, run) for case in cases]
    assert [o.case.id for o in outcomes if o.passed] == [case.id for case in off]
    assert {o.skipped for o in outcomes if not o.passed} == {
        "FAULT_STRATEGY has no latency fault tolerance (rmq_latency_fault_tolerance is false): judged on the traces that never turn latency on"
    }
    assert WRONG_QUEUES in {replay(wrong, case, run).divergence_class for case in off}


@pytest.mark.parametrize("spec, passes", [
    ("producer_protocol_twins:NoLatencyTolerance", True),
    ("producer_protocol_twins:NoLatencyToleranceOneAhead", False),
    (f"exec:{sys.executable} {TWINS} no-latency", True),  # faults on a trace that turns latency on
])
def test_a_strategy_without_latency_fault_tolerance_gets_the_generated_checks_on_latency_off_traces(spec, passes):
    """Seed 1; the one-ahead twin is caught by the fixed ``retry`` trace, asked first on every seed."""
    subject = _subject(spec, "5.3.3", examples=20, shrink_time=1.0)
    subject = subject.for_family("FAULT_STRATEGY") if subject.harness is not None else subject  # as the suite holds a harness
    check = reference_check(subject)
    # the fixed traces that never turn latency on: the retry, and the boundaries that need no latency
    assert [case.id for case in check.explicit] == ["fixed-retry", "fixed-unicode-route", "fixed-counter-top", "fixed-counter-bottom"]
    try:
        result = check_examples(subject, check.examples, check.body, explicit=check.explicit)
    finally:
        if subject.harness is not None:
            subject.harness.stop()
    assert (result.report is None) == passes, result.report
    if not passes:
        assert check.classify() == WRONG_QUEUES and "latency off" in result.report


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_traces_drawn_with_latency_off_never_turn_it_on(data):
    assert not turns_latency_on(data.draw(traces("4.9.8", latency=False)))


@pytest.mark.parametrize("release", ["4.7.1", "4.9.8", "5.3.3"])
def test_a_harness_declares_no_latency_fault_tolerance_in_its_hello_and_is_never_sent_a_trace_that_turns_it_on(release):
    cases, off = _by_latency(release)
    subject = _twin_harness("no-latency", release=release)
    assert latency_fault_tolerance(subject) is False
    try:
        outcomes = [replay(subject, case, SimpleNamespace(id=release)) for case in cases]
    finally:
        subject.harness.stop()
    assert sum(o.passed for o in outcomes) == len(off) and subject.harness.faults == 0
    assert all("its hello's latencyFaultTolerance is false" in o.skipped for o in outcomes if not o.passed)


@pytest.mark.parametrize("name, says", [("NoLatencyTolerance", False), ("NoLatencyToleranceOneAhead", False), ("FAULT_STRATEGY", True)])
def test_the_built_in_harness_says_what_a_python_strategy_declares(name, says):
    spec = name if name == "FAULT_STRATEGY" else f"producer_protocol_twins:{name}"
    harness = Harness(f"{sys.executable} -m pytest_rmq_conformance.harness {spec}", cwd=TWINS.parent)
    try:
        assert hello_says(harness.hello()) is says
    finally:
        harness.stop()


def test_a_hello_with_a_latency_fault_tolerance_that_is_not_a_bool_is_a_fault(tmp_path):
    script = tmp_path / "h.py"
    script.write_text(
        "import json, sys\nsys.stdin.readline()\nprint(json.dumps({'protocol': 1, 'implementation': {'name': 'x', 'language': 'Go', "
        "'version': '1'}, 'strategies': ['FAULT_STRATEGY'], 'sort': False, 'latencyFaultTolerance': 'no'}), flush=True)\n"
    )
    harness = Harness(f"{sys.executable} {script}")
    with pytest.raises(HarnessFault, match="latencyFaultTolerance that is not true or false"):
        harness.hello()


def test_a_python_strategy_declaring_it_other_than_as_a_bool_is_refused(pytester):
    # a module name no other test uses: pytester's runs share this worker's sys.modules
    pytester.makepyfile(latency_not_bool="from pytest_rmq_conformance.ports.producer import MQFaultStrategy\n"
                                         "class Mine(MQFaultStrategy):\n    rmq_latency_fault_tolerance = 'no'\n")
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-checks=golden", "--rmq-strategy=latency_not_bool:Mine")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*rmq_latency_fault_tolerance is 'no', not True or False*"])
