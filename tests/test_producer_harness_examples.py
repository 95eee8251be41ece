"""The producer example harnesses in Node.js and Go pass every golden case of the families they
claim (FAULT_STRATEGY at 5.3.3, SELECTOR_HASH at every release, FAULT_STRATEGY elsewhere
skipped as not implemented), and each deliberately wrong variant is rejected, classified as
the check that must catch it says.

Node and Go are required where ``RMQ_REQUIRE_TOOLS`` is set (``.ci/run`` sets it and
installs Go when it is missing); elsewhere a missing toolchain skips these tests.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections import Counter
from pathlib import Path

import pytest
from test_harness_examples import _go_build, _missing  # one way to find and build the toolchains

from pytest_rmq_conformance.engine.divergence import COUNTER_DRIFT, ERROR_BEHAVIOUR, LABELS, WRONG_QUEUES
from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.engine.resources import golden_dir

pytestmark = pytest.mark.examples


ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
Q = ["-p", "no:cacheprovider", "--rmq-checks=golden"]
LANGUAGES = ["node", "go"]
RELEASES = ("4.7.1", "4.9.8", "5.3.3")
TRACE_RELEASE = "5.3.3"  # the only release whose FAULT_STRATEGY the examples implement
#: the closing summary's words for each class
IMPACT_LABELS = {label: name for name, label in LABELS.items()}


@pytest.fixture(scope="session")
def go_binary(tmp_path_factory):
    target = tmp_path_factory.mktemp("producer-harness-go") / "rmq-producer-harness-go"
    return _go_build(EXAMPLES / "producer-harness-go", target)


@pytest.fixture(params=LANGUAGES)
def harness(request) -> tuple[str, str]:
    """The language and the ``exec:`` spec of one example harness."""
    if request.param == "node":
        node = shutil.which("node")
        if node is None:
            _missing("node")
        return "node", "exec:" + shlex.join([node, str(EXAMPLES / "producer-harness-node" / "harness.js")])
    return "go", "exec:" + shlex.join([str(request.getfixturevalue("go_binary"))])


@pytest.fixture(scope="session")
def producer_golden():
    return load_golden(golden_dir() / "producer", validate=False)  # the shipped data is validated in CI


def _count(golden, family: str, release: str) -> int:
    return sum(1 for case in golden.by_strategy(family) if release in case.runs)


@pytest.mark.heavy
def test_each_producer_harness_passes_every_golden_case_it_claims(pytester, harness, producer_golden):
    language, spec = harness
    for release in RELEASES:
        result = pytester.runpytest(*Q, f"--rmq-strategy={spec}", f"--rmq-reference-version={release}", "-rs")
        assert result.ret == 0, (release, result.stdout.str())
        hashes = _count(producer_golden, "SELECTOR_HASH", release)
        traces = _count(producer_golden, "FAULT_STRATEGY", release)
        wanted = {"passed": hashes + traces} if release == TRACE_RELEASE else {"passed": hashes, "skipped": traces}
        assert result.parseoutcomes() == wanted, (release, result.stdout.str())
        result.stdout.fnmatch_lines(
            [
                f"rmq-conformance: harness producer-{language}-example 1.0.0 (*): families FAULT_STRATEGY, SELECTOR_HASH; "
                'skipped: sort (its hello says "sort": false); every check of *SELECTOR_RANDOM, GROUP_HASH, PUBLISH_ROUND_ROBIN, SUBSCRIBE_ROUND_ROBIN (not in its hello\'s strategies)',
            ]
        )
        # what did not run is FAULT_STRATEGY outside 5.3.3, answered `unsupported`: not implemented, not passed
        skipped = [line for line in result.outlines if line.startswith("SKIPPED [")]
        counted = sum(int(line.split("[")[1].split("]")[0]) for line in skipped)
        assert counted == wanted.get("skipped", 0), (release, skipped)
        assert all("not implemented: FAULT_STRATEGY" in line for line in skipped), (release, skipped)


def test_each_producer_harness_passes_the_generated_checks_at_its_trace_release(pytester, harness):
    """Drawn traces and selector calls, one request each, against the reference port; and the
    properties Java has at the release."""
    language, spec = harness
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy={spec}", f"--rmq-reference-version={TRACE_RELEASE}",
                                "--rmq-checks=reference,invariants", "--rmq-examples=15", "--rmq-seed=1")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] >= 2 + 11 + 3  # the differential per family; 11 trace and 3 selector properties


def _by_impact(result) -> dict[str, int]:
    """The closing summary's ``by impact: N wrong queues, ...`` line, as {class: N}."""
    lines = [line for line in result.outlines if line.startswith("by impact: ")]
    assert len(lines) == 1, result.stdout.str()
    counts = {}
    for part in lines[0].removeprefix("by impact: ").split(", "):
        number, label = re.fullmatch(r"(\d+) (.+)", part).groups()
        assert label in IMPACT_LABELS, lines[0]
        counts[IMPACT_LABELS[label]] = int(number)
    return counts


@pytest.mark.parametrize(
    "broken, release, family, kinds",
    [
        pytest.param("python-modulo", "5.3.3", "SELECTOR_HASH", {WRONG_QUEUES}, id="python-modulo"),
        pytest.param("no-min-value-quirk", "4.7.1", "SELECTOR_HASH", {ERROR_BEHAVIOUR}, id="no-min-value-quirk"),
        pytest.param(
            "counter-extra-step", "5.3.3", "FAULT_STRATEGY", {WRONG_QUEUES, COUNTER_DRIFT}, id="counter-extra-step"
        ),
        pytest.param("penalty-off-by-one", "5.3.3", "FAULT_STRATEGY", {WRONG_QUEUES}, id="penalty-off-by-one"),
    ],
)
def test_each_wrong_variant_is_rejected_as_its_check_classifies_it(
    pytester, monkeypatch, harness, producer_golden, broken, release, family, kinds
):
    """The variant's family only: the other family's code is the harness's own, which passes every
    case it claims (the test above)."""
    language, spec = harness
    monkeypatch.setenv("RMQ_HARNESS_BROKEN", broken)
    result = pytester.runpytest(  # the verdicts are read from the results file: no tracebacks printed
        *Q, f"--rmq-strategy={spec}", f"--rmq-reference-version={release}", "--rmq-results=results.jsonl", "-k", family, "--tb=no"
    )
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"rmq-conformance: harness producer-{language}-example-{broken} 1.0.0 (*): families *"]
    )

    lines = [json.loads(line) for line in (pytester.path / "results.jsonl").read_text().splitlines()]
    failed = [line for line in lines if line["verdict"] == "failed"]
    assert failed, result.stdout.str()
    assert result.parseoutcomes()["failed"] == len(failed)
    # the family's cases fail, each of the expected classes
    assert {producer_golden.case(line["case"]).strategy for line in failed} == {family}
    found = Counter(line["kind"] for line in failed)
    assert set(found) <= kinds, found
    # the summary counts what the results say
    assert _by_impact(result) == dict(found)

    if broken == "no-min-value-quirk":
        # exactly the arguments whose hash is Integer.MIN_VALUE, where 4.7.1 answers otherwise than 4.9.8
        quirks = {
            case.id
            for case in producer_golden.by_strategy("SELECTOR_HASH")
            if case.answers_for("4.7.1").answers != case.answers_for("4.9.8").answers
        }
        assert {line["case"] for line in failed} == quirks
        assert all(case.endswith("-min-value") for case in quirks)
    if broken == "counter-extra-step":
        assert found[WRONG_QUEUES] >= 1
