"""The example harnesses in Node.js and Go pass the suite at 5.3.3, their deliberately wrong
variants are rejected by the check that must catch each, and killing one mid-run is survived.

Node and Go are required where ``RMQ_REQUIRE_TOOLS`` is set (``.ci/run`` sets it and
installs Go when it is missing); elsewhere a missing toolchain skips these tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import missing
from docs_pages import documentation

import pytest_rmq_conformance

pytestmark = pytest.mark.examples

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
Q = ["-p", "no:cacheprovider"]
LANGUAGES = ["node", "go"]
FAMILIES = ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH")


def _missing(tool: str) -> None:
    missing(f"{tool} is not installed (.ci/run installs it)")


def _go_build(source: Path, target: Path) -> Path:
    go = shutil.which("go")
    if go is None:
        _missing("go")
    env = dict(os.environ)
    if "HOME" not in env and "GOCACHE" not in env:
        env["GOCACHE"] = str(target.parent / "go-cache")
    subprocess.run([go, "build", "-o", str(target), "."], cwd=source, env=env, check=True)
    return target


@pytest.fixture(scope="session")
def go_binary(tmp_path_factory):
    return _go_build(EXAMPLES / "harness-go", tmp_path_factory.mktemp("harness-go") / "rmq-harness-go")


@pytest.fixture(params=LANGUAGES)
def harness(request) -> str:
    """The ``exec:`` spec of one example harness."""
    if request.param == "node":
        node = shutil.which("node")
        if node is None:
            _missing("node")
        return f"exec:{node} {EXAMPLES / 'harness-node' / 'harness.js'}"
    return f"exec:{request.getfixturevalue('go_binary')}"


@pytest.mark.heavy
def test_each_example_harness_passes_the_whole_suite_at_5_3_3(pytester, harness):
    """Every check and every golden case; the generated checks draw 20 groups each, half the quick
    profile's 40 (each wrong variant below is caught with fewer)."""
    result = pytester.runpytest(*Q, f"--rmq-strategy={harness}", "--rmq-reference-version=5.3.3", "--rmq-examples=20", "-rs")
    assert result.ret == 0, result.stdout.str()
    outcomes = result.parseoutcomes()
    # a loaded machine may run a slow check out of its time budget: a warning, not a verdict; the
    # producer's invariants are deselected for a consumer harness
    assert set(outcomes) - {"warnings"} == {"passed", "skipped", "deselected"}
    result.stdout.fnmatch_lines(
        [
            "rmq-conformance: harness *-example 1.0.0 (*): families AVG, AVG_BY_CIRCLE, CONSISTENT_HASH; sort checked; "
            "skipped: every check of MACHINE_ROOM, MACHINE_ROOM_NEARBY, CONFIG, FAULT_STRATEGY, SELECTOR_HASH, SELECTOR_RANDOM, "
            "GROUP_HASH, PUBLISH_ROUND_ROBIN, SUBSCRIBE_ROUND_ROBIN (not in its hello's strategies)",
        ]
    )
    # what did not run says why: a property Java does not have, or a check a pipe cannot carry
    reasons = [line.split(": ", 1)[1] for line in result.outlines if line.startswith("SKIPPED [")]
    assert sum(int(line.split("[")[1].split("]")[0]) for line in result.outlines if line.startswith("SKIPPED [")) == outcomes["skipped"]
    assert all("does not claim" in reason or "a strategy behind a harness" in reason for reason in reasons), reasons


@pytest.mark.parametrize(
    "broken, node, says",
    [
        pytest.param("codepoint-sort", "test_sort.py", ["*cidAll: the orders part at position *"], id="codepoint-sort"),
        pytest.param("off-by-one", "test_golden.py", ["*missing and * extra queue(s)*"], id="off-by-one"),
        pytest.param(
            "ring-after",
            "test_reference.py::test_matches_reference[CONSISTENT_HASH]",
            ["*CONSISTENT_HASH differs from the reference port of RocketMQ 5.3.3 on a generated group*", "*replay: pytest *"],
            id="ring-after",
        ),
    ],
)
def test_each_wrong_variant_is_rejected_by_its_check(pytester, monkeypatch, harness, broken, node, says):
    monkeypatch.setenv("RMQ_HARNESS_BROKEN", broken)
    suite = Path(pytest_rmq_conformance.__file__).parent / "suite"  # the installed suite (tox installs a wheel)
    result = pytester.runpytest(*Q, str(suite / node), f"--rmq-strategy={harness}", "--rmq-reference-version=5.3.3")
    assert result.ret == 1, result.stdout.str()
    assert result.parseoutcomes()["failed"] >= 1
    result.stdout.fnmatch_lines([f"*harness *-example-{broken} 1.0.0*", *says])


def test_the_golden_vectors_alone_cannot_see_the_ring_after_variant(pytester, monkeypatch, go_binary):
    """Why ``ring-after`` needs the differential: no golden queue hashes exactly onto a ring node."""
    monkeypatch.setenv("RMQ_HARNESS_BROKEN", "ring-after")
    result = pytester.runpytest(*Q, f"--rmq-strategy=exec:{go_binary}", "--rmq-checks=golden")
    assert result.ret == 0, result.stdout.str()


KILLER = """
import os, signal, time

seen = []

def _state(pid):
    with open(f"/proc/{{pid}}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return fields[0], fields[1]  # state, parent

def pytest_sessionstart(session):
    seen.clear()  # the module outlives one in-process run

def pytest_runtest_setup(item):
    seen.append(item.nodeid)
    if len(seen) != {at}:
        return
    me = str(os.getpid())
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            state, parent = _state(pid)
            with open(f"/proc/{{pid}}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except OSError:
            continue
        if parent == me and state != "Z" and {program!r} in command:
            os.kill(int(pid), signal.SIGKILL)
            while _state(pid)[0] != "Z":
                time.sleep(0.01)
            print(f"killed the harness before {{item.nodeid}}")
"""


def test_killing_the_harness_mid_run_fails_one_case_and_the_run_goes_on(pytester, harness, golden):
    # the harness under test only: other children of this process (an xdist worker's) are not its
    pytester.makepyfile(killer=KILLER.format(at=100, program=harness.removeprefix("exec:").split()[-1].encode()))
    pytester.syspathinsert()
    result = pytester.runpytest(*Q, "-p", "killer", f"--rmq-strategy={harness}", "--rmq-checks=golden", "-s")
    cases = sum(1 for case in golden.cases if case.strategy in FAMILIES and "5.3.3" in case.runs)
    assert result.parseoutcomes() == {"passed": cases - 1, "failed": 1}
    assert result.stdout.str().count("killed the harness before") == 1
    result.stdout.fnmatch_lines(
        [
            "*killed the harness before *test_golden*",
            "*the harness * was killed by signal SIGKILL before it * allocate request *",
            "*its stderr was empty*",
        ]
    )


def test_the_go_tutorial_shows_the_minimal_harness_whole_and_its_run_passes_every_case(golden):
    """The Go tutorial (docs/tutorials/go-allocation-harness.md) shows ``examples/harness-go-minimal/main.go``
    whole, and the run it shows passes every AVG_BY_CIRCLE golden case at 5.3.3 and reports the
    other families as not run: the page's test (tests/test_docs_blocks.py) builds it and makes that
    run, so it is not made twice."""
    source = (EXAMPLES / "harness-go-minimal" / "main.go").read_text()
    assert f"```go\n{source}```" in documentation()
    page = (ROOT / "docs" / "tutorials" / "go-allocation-harness.md").read_text(encoding="utf-8")
    cases = sum(1 for case in golden.cases if case.strategy == "AVG_BY_CIRCLE" and "5.3.3" in case.runs)
    shown = page[page.index("$ pytest --rmq-strategy=exec:./my-client --rmq-checks=golden\n") :].split("```", 1)[0]
    assert "rmq-conformance: harness my-client 0.1.0 (Go): families AVG_BY_CIRCLE; " in shown
    assert f"\n...{cases} passed in ...\n" in shown
