"""The Go client of RocketMQ 5 (``github.com/apache/rocketmq-clients/golang/v5`` from the Go module
proxy) judged through its own code: ``clients/go/build.py`` builds the harness against the pinned
version (the module copied as the proxy served it, plus the hook that reaches the producer's and
the simple consumer's route handling), and the suite runs it on the golden vectors of the three
gRPC balancers. A route enters as the proxy's QueryRouteResponse, and the producer or the simple
consumer builds its balancer from it as a first send or receive does. Its verdict, family by
family, is held here, beside the report (clients/report.py runs it through clients/go/harness.py).

The proxy serves v5.1.2, v5.1.3 and v5.1.4 (v5.0.x, v5.1.0, v5.1.1, v5.1.5 and v5.2.0 answer 403);
the three give these verdicts case for case. Lines below are v5.1.4's."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import missing, verdict_counts

pytestmark = [pytest.mark.clients, pytest.mark.network]

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "clients" / "go" / "build.py"
MODULE = "github.com/apache/rocketmq-clients/golang/v5"
PINNED = "v5.1.4"

#: (check, family, verdict, divergence class) -> cases, at RocketMQ 5.5.0
VERDICT = {
    # siphash.Hash with Guava's key read as an int64, utils.Mod64 (loadBalancer.go:60-61): Java's
    ("golden", "GROUP_HASH", "passed", None): 1633,
    # unsupported: a lone UTF-16 surrogate, which a Go string cannot hold (Java hashes it as '?')
    ("golden", "GROUP_HASH", "skipped", None): 178,
    ("golden", "PUBLISH_ROUND_ROBIN", "passed", None): 187,
    # 700: the balancer keeps every queue of the route, slaves and queues it cannot write to
    # included: NewPublishingLoadBalancer keeps the list it is given (loadBalancer.go:46-51), and
    # the producer gives it the QueryRouteResponse's queues as they came (producer.go:97, from
    # client.go:350-377 and queryRoute, client.go:379-397); 691 at the first route, 9 at an update
    # (the route refresh's CopyAndUpdate, client.go:579, loadBalancer.go:124-129).
    # 206: a take answers one queue, the one at its index, whatever the count and the excluded
    # endpoints: its loop reads messageQueues[utils.Mod(next+1, n)] on every pass without moving
    # (loadBalancer.go:75-76, and the fallback for all isolated, 104-105), so every pass after the
    # first meets the same broker name; 166 where Java took more than one queue, 28 where Java
    # passed over the queue at its index (its broker excluded), 12 where Java took none (a count
    # of 0 or -1 and that queue excluded: Java checks the count on every pass, Go only after it
    # adds a queue, loadBalancer.go:92-94 and 99)
    ("golden", "PUBLISH_ROUND_ROBIN", "failed", "wrong-queues"): 906,
    # a route with no writable queue of a master broker: Java's constructor throws
    # IllegalArgumentException, the Go balancer is built on all of it (loadBalancer.go:46-51,
    # no filter) (101), or a refresh takes it (6)
    ("golden", "PUBLISH_ROUND_ROBIN", "failed", "error-behaviour"): 107,
    ("golden", "SUBSCRIBE_ROUND_ROBIN", "passed", None): 200,
    # every queue of the route kept, slaves and queues it cannot read included:
    # NewSubscriptionLoadBalancer keeps the list it is given (loadBalancer.go:144-149), which the
    # simple consumer takes from the route as it came (simple_consumer.go:433); 326 at the first
    # route, 19 at an update (client.go:589, loadBalancer.go:161-166). Its takes agree with Java's
    # wherever the kept queues do: Inc() then Mod(next+1) (loadBalancer.go:155-156) reads its
    # stored index + 2, hence indexOffsets -2
    ("golden", "SUBSCRIBE_ROUND_ROBIN", "failed", "wrong-queues"): 345,
    # a route with no readable queue of a master broker: built (49) or refreshed to (6) all the same
    ("golden", "SUBSCRIBE_ROUND_ROBIN", "failed", "error-behaviour"): 55,
}


def _build(version: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BUILD), "rocketmq-clients-golang", version], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def harness() -> str:
    if shutil.which("go") is None:
        missing("go is not installed")
    done = _build(PINNED)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"{MODULE}@{PINNED} h1:")
    return done.stdout.strip()


def test_the_hello_says_the_client_and_its_counter(harness):
    done = subprocess.run([harness], input='{"cmd": "hello", "protocol": 1}\n{"cmd": "bye"}\n', capture_output=True, text=True,
                          timeout=30, check=True)
    hello = json.loads(done.stdout)
    assert hello["implementation"] == {"name": MODULE, "language": "Go", "version": PINNED, "homepage": "https://github.com/apache/rocketmq-clients"}
    assert hello["strategies"] == ["GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"]
    # a take steps the index and then reads one further: it holds Java's - 2 to read what Java reads
    assert hello["indexOffsets"] == {"PUBLISH_ROUND_ROBIN": -2, "SUBSCRIBE_ROUND_ROBIN": -2}


def test_the_pinned_version_is_judged_family_by_family(harness, pytester, tmp_path):
    results = tmp_path / "results.jsonl"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy=exec:{harness}", "--rmq-checks=golden",
                                "--rmq-reference-version=5.5.0", f"--rmq-results={results}")
    result.stdout.fnmatch_lines([f"rmq-conformance: harness {MODULE} {PINNED} (Go): families GROUP_HASH, PUBLISH_ROUND_ROBIN, SUBSCRIBE_ROUND_ROBIN;*"])
    assert verdict_counts(results) == VERDICT


def test_a_version_the_proxy_does_not_serve_is_said_in_one_line():
    if shutil.which("go") is None:
        missing("go is not installed")
    done = _build("v5.1.1")  # tagged, but the proxy answers 403
    assert done.returncode == 2
    assert done.stderr.startswith(f"clients/go/build.py: {MODULE}@v5.1.1 does not resolve: ")
    assert len(done.stderr.strip().splitlines()) == 1
