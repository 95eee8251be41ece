"""The gRPC-balancer example harnesses in Node.js and Go pass every golden case and the
generated checks, and each deliberately wrong variant is rejected by the golden check, in the
families it breaks.

Node and Go are required where ``RMQ_REQUIRE_TOOLS`` is set (``.ci/run`` sets it and
installs Go when it is missing); elsewhere a missing toolchain skips these tests.
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections import Counter
from pathlib import Path

import pytest
from test_harness_examples import _go_build, _missing  # one way to find and build the toolchains

from pytest_rmq_conformance.engine.divergence import WRONG_QUEUES
from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.engine.resources import golden_dir

pytestmark = pytest.mark.examples

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
Q = ["-p", "no:cacheprovider", "--rmq-checks=golden"]
GOLDEN = load_golden(golden_dir() / "grpc", validate=False)  # the shipped data is validated in CI


@pytest.fixture(scope="session")
def go_binary(tmp_path_factory):
    return _go_build(EXAMPLES / "grpc-harness-go", tmp_path_factory.mktemp("grpc-harness-go") / "rmq-grpc-harness-go")


@pytest.fixture(params=["node", "go"])
def harness(request) -> tuple[str, str]:
    """The language and the ``exec:`` spec of one example harness."""
    if request.param == "node":
        node = shutil.which("node")
        if node is None:
            _missing("node")
        return "node", "exec:" + shlex.join([node, str(EXAMPLES / "grpc-harness-node" / "harness.js")])
    return "go", "exec:" + shlex.join([str(request.getfixturevalue("go_binary"))])


def test_each_grpc_harness_passes_every_golden_case_and_the_generated_checks(pytester, harness):
    language, spec = harness
    golden = pytester.runpytest(*Q, f"--rmq-strategy={spec}")
    assert golden.ret == 0, golden.stdout.str()
    assert golden.parseoutcomes() == {"passed": len(GOLDEN.cases)}
    golden.stdout.fnmatch_lines([f"rmq-conformance: harness grpc-{language}-example 1.0.0 (*): "
                                 "families GROUP_HASH, PUBLISH_ROUND_ROBIN, SUBSCRIBE_ROUND_ROBIN*"])
    generated = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy={spec}", "--rmq-checks=reference,invariants",
                                   "--rmq-examples=15", "--rmq-seed=1")
    assert generated.ret == 0, generated.stdout.str()
    assert generated.parseoutcomes()["passed"] == 3 + 3 + 5 + 2  # the differential per family; each family's properties


@pytest.mark.parametrize(
    "broken, families",
    [
        ("unsigned-modulo", {"GROUP_HASH", "PUBLISH_ROUND_ROBIN"}),  # PUBLISH_ROUND_ROBIN's group steps
        ("byte-order", {"GROUP_HASH", "PUBLISH_ROUND_ROBIN"}),
        ("code-points", {"GROUP_HASH", "PUBLISH_ROUND_ROBIN"}),
        ("keeps-slaves", {"PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"}),
    ],
)
def test_each_wrong_variant_is_rejected_in_the_families_it_breaks(pytester, monkeypatch, harness, broken, families):
    """The cases of the families the variant breaks, each family failing: the third family's code
    is the harness's own, which passes every case (the test above)."""
    language, spec = harness
    monkeypatch.setenv("RMQ_HARNESS_BROKEN", broken)
    # hundreds of failures: their tracebacks are printed only where the test reads one (pytest's
    # report of them grows with failures times tests, 6 s here)
    shown = [] if broken == "unsigned-modulo" else ["--tb=no"]
    result = pytester.runpytest(
        *Q, f"--rmq-strategy={spec}", "--rmq-results=results.jsonl", "-k", " or ".join(sorted(families)), *shown
    )
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines([f"rmq-conformance: harness grpc-{language}-example-{broken} 1.0.0 (*): families *"])
    lines = [json.loads(line) for line in (pytester.path / "results.jsonl").read_text().splitlines()]
    failed = [line for line in lines if line["verdict"] == "failed"]
    assert {GOLDEN.case(line["case"]).strategy for line in failed} == families
    assert Counter(line["kind"] for line in failed)[WRONG_QUEUES] > 0
    if broken == "unsigned-modulo":  # the harness says the hash it took: the report shows both
        assert sum(1 for line in failed if GOLDEN.case(line["case"]).strategy == "GROUP_HASH") == 727
        result.stdout.fnmatch_lines(["*the implementation's hash: *"])
