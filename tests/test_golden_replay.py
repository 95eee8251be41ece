"""Every golden vector of every run, replayed against the reference ports, exactly."""

import json
import re
from collections import Counter

import pytest

from pytest_rmq_conformance import MessageQueue, java_sorted_queues
from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.javalang import java_sorted_strings
from pytest_rmq_conformance.kinds.allocation.cases import JavaError
from pytest_rmq_conformance.kinds.allocation.replay import replay_case
from pytest_rmq_conformance.releases import RELEASES

pytestmark = pytest.mark.once

GOLDEN = load_golden()
#: the runs of the releases the ports reproduce (every other release's answers are one of theirs,
#: or not reproduced: tests/test_golden_behaviours.py)
CASE_RUNS = [(case, run) for case in GOLDEN.cases for run in case.runs if GOLDEN.runs[run].rocketmq in RELEASES]


def reference_factory(case, run_id):
    run = GOLDEN.runs[run_id]
    params = case.params_for(run)
    return lambda: reference_strategy(case.strategy, params, run.rocketmq)


@pytest.mark.parametrize("case, run", CASE_RUNS, ids=[f"{case.id}@{run}" for case, run in CASE_RUNS])
def test_reference_port_reproduces_java(case, run):
    mismatches = replay_case(reference_factory(case, run), case, run, strict_order=True)
    assert not mismatches, "\n".join(str(m) for m in mismatches)


def check_java_sort(items, outcome, sort):
    if items is None:
        assert outcome is None
    elif isinstance(outcome, JavaError):
        with pytest.raises(ValueError, match=re.escape(outcome.message or "")):
            sort(items)
    else:
        assert sort(items) == [items[i] for i in outcome]


@pytest.mark.parametrize("case", GOLDEN.cases, ids=[case.id for case in GOLDEN.cases])
def test_java_sorted_inputs_match_the_java_order_helpers(case):
    check_java_sort(case.mq_all, case.java_sorted_mq_all, java_sorted_queues)
    check_java_sort(case.cid_all, case.java_sorted_cid_all, java_sorted_strings)


def test_a_sort_java_refused_is_refused_too():
    """No public case has one; build the queue list on which Java's sort throws."""
    import json as _json
    from pathlib import Path

    vectors = Path(__file__).parent / "data" / "timsort_vectors.jsonl"
    failing = next(v for v in map(_json.loads, vectors.read_text().splitlines()) if "error" in v)
    queues = [MessageQueue("t", "b", value) for value in failing["input"]]
    check_java_sort(queues, JavaError("java.lang.IllegalArgumentException", failing["error"]), java_sorted_queues)


def test_every_harness_record_is_replayed():
    """Nothing was lost on import: each run has as many cases as its source files had lines."""
    manifest = json.loads((golden_dir() / "manifest.json").read_text())
    lines = Counter()
    for source in manifest["sources"]:
        lines[source["run"]] += source["lines"]
    answered = Counter(run for case in GOLDEN.cases for run in case.runs)
    assert answered == lines
    replayed = Counter(run for _, run in CASE_RUNS)
    assert dict(replayed) == {
        "4.7.1": 1557, "4.7.1+ISO-8859-1": 18, "4.9.8": 1557, "4.9.8+ISO-8859-1": 18, "5.3.3": 1557
    }
    answers = Counter()
    for case, run in CASE_RUNS:
        answers[run] += len(case.results_for(run))
    assert sum(answers.values()) == 80102


def test_the_release_differences_are_where_the_spec_says():
    differing = Counter()
    for case in GOLDEN.cases:
        old, mid, new = (case.results_for(run) for run in ("4.7.1", "4.9.8", "5.3.3"))
        if not old == mid == new:
            differing[case.strategy] += 1
            if case.strategy == "MACHINE_ROOM":
                assert case.results_for("4.9.8") == case.results_for("5.3.3") != case.results_for("4.7.1")
    assert differing == {"MACHINE_ROOM": 56}
    charset = [case for case in GOLDEN.cases if "4.9.8+ISO-8859-1" in case.runs and case.results_for("4.9.8+ISO-8859-1") != case.results_for("4.9.8")]
    assert {case.strategy for case in charset} == {"CONSISTENT_HASH"} and len(charset) == 16


def test_published_example_is_in_the_data():
    case = GOLDEN.case("pub-AVG-0002-published-example")
    shares = [[mq.queue_id for mq in r.queues] for r in case.results_for("5.3.3")]
    assert shares == [list(range(8)), list(range(8, 16))]
    assert all(isinstance(mq, MessageQueue) for mq in case.results_for("5.3.3")[0].queues)
