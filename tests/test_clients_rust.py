"""rocketmq-client-rust (crates.io) judged through its own code: ``clients/rust/build.py`` builds
the harness crate against the pinned version (``=1.0.0``, cargo's registry in ``~/.cargo``, one
shared target folder in this project's cache), and the suite runs it on the golden vectors:
consumer allocation (the crate's ``AllocateMessageQueueStrategy`` impls, re-exported from
``rocketmq-model``) and the hash selector. Its random selector, its fault strategy and its
rebalance sort cannot be given what Java's harness fixes, or cannot be reached: not run,
unsupported, and ``"sort": false``. Its verdict, family by family, is held here (``tox -e
clients-rust``: a cold build takes half an hour on two cores, too long for CI's default run); the
report does not take it in yet."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import missing, verdict_counts

pytestmark = [pytest.mark.clients, pytest.mark.network]

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "clients" / "rust" / "build.py"
PINNED = "1.0.0"

#: (check, family, verdict, divergence class) -> cases, at RocketMQ 5.5.0. Every allocation case the
#: crate can be given agrees with Java: rocketmq-model 1.0.0's allocation.rs ports Java's check
#: (allocation.rs:48) and strategies, its ring the same MD5 of the same keys (consistent_hash.rs).
#: The skipped allocation cases hold a null (a currentCID among the callers, mqAll, cidAll,
#: consumeridcs or messageQueueList), which the crate's &CheetahString and slices cannot be given.
VERDICT = {
    ("golden", "AVG", "passed", None): 289,
    ("golden", "AVG", "skipped", None): 109,  # unsupported: a null (106 of them a null currentCID)
    ("golden", "AVG_BY_CIRCLE", "passed", None): 303,
    ("golden", "AVG_BY_CIRCLE", "skipped", None): 106,
    ("golden", "CONFIG", "passed", None): 6,
    ("golden", "CONFIG", "skipped", None): 16,
    ("golden", "CONSISTENT_HASH", "passed", None): 318,
    ("golden", "CONSISTENT_HASH", "skipped", None): 121,
    ("golden", "MACHINE_ROOM", "passed", None): 95,
    ("golden", "MACHINE_ROOM", "skipped", None): 35,
    ("golden", "MACHINE_ROOM_NEARBY", "passed", None): 120,
    ("golden", "MACHINE_ROOM_NEARBY", "skipped", None): 39,
    # unsupported: TopicPublishInfo is private (src/lib.rs:78 mod producer), its ThreadLocalIndex
    # starts at a random draw with no setter (common/thread_local_index.rs:26,46), and the fault
    # table reads the system clock (latency/latency_fault_tolerance_impl.rs:44)
    ("golden", "FAULT_STRATEGY", "skipped", None): 736,
    ("golden", "SELECTOR_HASH", "passed", None): 787,  # Java's hashCode (JavaHashCode), |h % n| as 4.9.8 on
    # n=0: Java throws ArithmeticException, the crate returns None (select_message_queue_by_hash.rs:153)
    ("golden", "SELECTOR_HASH", "failed", "error-behaviour"): 45,
    ("golden", "SELECTOR_HASH", "not-run", None): 52,  # a list of 2^30 + 1 or 2^31 - 1 queues, which a Vec would hold
    # rand::rng(), seeded by the system (producer/queue_selector/select_message_queue_by_random.rs:63)
    ("golden", "SELECTOR_RANDOM", "not-run", None): 124,
    # "sort": false: RebalanceImpl, whose rebalance_by_topic sorts both lists (rebalance_impl.rs:1204),
    # is pub(crate) (consumer_impl/re_balance/rebalance_impl.rs:145)
    ("sort", "generated", "skipped", None): 2,
}


def _build(version: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BUILD), "rocketmq-client-rust", version], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def harness() -> str:
    if shutil.which("cargo") is None:
        missing("cargo is not installed")
    done = _build(PINNED)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"rocketmq-client-rust@{PINNED} https://github.com/")
    return done.stdout.strip()


def test_the_pinned_version_is_judged_family_by_family(harness, pytester, tmp_path):
    results = tmp_path / "results.jsonl"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy=exec:{harness}", "--rmq-checks=golden,sort",
                                "--rmq-reference-version=5.5.0", f"--rmq-results={results}")
    result.stdout.fnmatch_lines([f"rmq-conformance: harness rocketmq-client-rust {PINNED} (Rust): families AVG, AVG_BY_CIRCLE, *"])
    assert verdict_counts(results) == VERDICT


@pytest.mark.parametrize("version", ["0.0.1", "9.9.9"])
def test_a_version_crates_io_does_not_serve_is_said_in_one_line(version):
    if shutil.which("cargo") is None:
        missing("cargo is not installed")
    done = _build(version)
    assert done.returncode == 2
    assert done.stderr.startswith(f"clients/rust/build.py: rocketmq-client-rust@{version} does not resolve: ")
    assert len(done.stderr.strip().splitlines()) == 1
