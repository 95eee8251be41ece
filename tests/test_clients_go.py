"""rocketmq-client-go (``github.com/apache/rocketmq-client-go/v2`` from the Go module proxy) judged
through its own code: ``clients/go/build.py`` builds the harness against the pinned version (the
module copied as the proxy served it, plus the hook that reaches its rebalance), and the suite
runs it on the golden vectors (consumer allocation and producer selectors; it has no fault
strategy) and the rebalance sort. Its verdict, family by family, is held here, beside the report
(clients/report.py runs it through clients/go/harness.py); MACHINE_ROOM_NEARBY is not in its hello
(AllocateByMachineNearby is AllocateByAveragely: no resolver, no inner strategy)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import missing, verdict_counts

pytestmark = [pytest.mark.clients, pytest.mark.network]

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "clients" / "go" / "build.py"
PINNED = "v2.1.2"

#: (check, family, verdict, divergence class) -> cases, at RocketMQ 5.5.0
VERDICT = {
    ("golden", "AVG", "passed", None): 289,
    ("golden", "AVG", "failed", "error-behaviour"): 109,  # nil where Java throws IllegalArgumentException
    ("golden", "AVG_BY_CIRCLE", "passed", None): 303,
    ("golden", "AVG_BY_CIRCLE", "failed", "error-behaviour"): 106,
    ("golden", "CONFIG", "passed", None): 22,
    ("golden", "CONSISTENT_HASH", "passed", None): 13,
    ("golden", "CONSISTENT_HASH", "failed", "wrong-queues"): 417,  # another ring: mq.String() keys, another hash
    ("golden", "CONSISTENT_HASH", "failed", "error-behaviour"): 9,
    ("golden", "MACHINE_ROOM", "passed", None): 64,
    ("golden", "MACHINE_ROOM", "failed", "wrong-queues"): 37,  # its block cut from mqAll, not the eligible queues
    ("golden", "MACHINE_ROOM", "failed", "error-behaviour"): 29,
    ("golden", "SELECTOR_HASH", "failed", "wrong-queues"): 449,  # FNV-1a of the key's bytes, not hashCode()
    ("golden", "SELECTOR_HASH", "not-run", None): 435,  # an argument that is not a string, or the empty key
    ("golden", "SELECTOR_RANDOM", "not-run", None): 124,  # math/rand seeded by the clock
    ("sort", "AVG", "passed", None): 382,
    ("sort", "AVG", "failed", "wrong-queues"): 16,  # byte order where Java compares UTF-16 units
    ("sort", "AVG_BY_CIRCLE", "passed", None): 395,
    ("sort", "AVG_BY_CIRCLE", "failed", "wrong-queues"): 14,
    ("sort", "CONFIG", "passed", None): 22,
    ("sort", "CONSISTENT_HASH", "passed", None): 426,
    ("sort", "CONSISTENT_HASH", "failed", "wrong-queues"): 13,
    ("sort", "MACHINE_ROOM", "passed", None): 128,
    ("sort", "MACHINE_ROOM", "failed", "wrong-queues"): 2,
    ("sort", "generated", "failed", "property"): 1,
}


def _build(version: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BUILD), "rocketmq-client-go", version], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def harness() -> str:
    if shutil.which("go") is None:
        missing("go is not installed")
    done = _build(PINNED)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"github.com/apache/rocketmq-client-go/v2@{PINNED} h1:")
    return done.stdout.strip()


def test_the_pinned_version_is_judged_family_by_family(harness, pytester, tmp_path):
    results = tmp_path / "results.jsonl"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy=exec:{harness}", "--rmq-checks=golden,sort",
                                "--rmq-reference-version=5.5.0", f"--rmq-results={results}")
    result.stdout.fnmatch_lines([f"rmq-conformance: harness github.com/apache/rocketmq-client-go/v2 {PINNED} (Go): families AVG, AVG_BY_CIRCLE, *"])
    assert verdict_counts(results) == VERDICT


def test_a_version_the_proxy_does_not_serve_is_said_in_one_line():
    if shutil.which("go") is None:
        missing("go is not installed")
    done = _build("v2.0.1")  # never tagged: the proxy answers 403
    assert done.returncode == 2
    assert done.stderr.startswith("clients/go/build.py: github.com/apache/rocketmq-client-go/v2@v2.0.1 does not resolve: ")
    assert len(done.stderr.strip().splitlines()) == 1
