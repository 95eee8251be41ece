"""Strategies behind a harness, as users run them: exec: specs, --rmq-isolate, and every crash survived."""

import re
import sys

import pytest

from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.engine.resources import golden_dir

Q = ["-p", "no:cacheprovider", "-rs"]
PYTHON_HARNESS = f"exec:{sys.executable} -m pytest_rmq_conformance.harness"

CRASHERS = '''
import ctypes, os, time
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely

def _four_clients(cid_all):
    return cid_all is not None and len(cid_all) == 4

class ExitsOnFourClients(AllocateMessageQueueAveragely):
    def allocate(self, group, cid, mq_all, cid_all):
        if _four_clients(cid_all):
            os._exit(3)
        return super().allocate(group, cid, mq_all, cid_all)

class SegfaultsOnFourClients(AllocateMessageQueueAveragely):
    def allocate(self, group, cid, mq_all, cid_all):
        if _four_clients(cid_all):
            ctypes.string_at(0)
        return super().allocate(group, cid, mq_all, cid_all)

class PrintsAndHangsOnFourClients(AllocateMessageQueueAveragely):
    def allocate(self, group, cid, mq_all, cid_all):
        print("thinking about", cid)  # printed output must not garble the protocol
        if _four_clients(cid_all):
            time.sleep(60)
        return super().allocate(group, cid, mq_all, cid_all)
'''

#: a harness of AVG that says something other than the protocol when a case has four clients
SAYS = r'''
import json, os, sys
mode = sys.argv[1]
if mode == "silent":
    sys.stdin.readline()
    sys.exit(0)
served = {"avg-only": ["AVG", "CONSISTENT_HASH"], "typo": ["AVG", "CONSISTENT_HAHS"]}.get(mode, ["AVG", "NEWFANGLED"])
print(json.dumps({"protocol": 1, "implementation": {"name": "says", "language": "Python", "version": "0"},
                  "strategies": served, "sort": False}), flush=True)
sys.stdin.readline()
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely
from pytest_rmq_conformance.model import MessageQueue
for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "bye":
        break
    rid = request["id"]
    if mode == "nothing" or (mode == "avg-only" and request["strategy"] != "AVG"):
        print(json.dumps({"id": rid, "unsupported": "not yet"}), flush=True)
        continue
    if request["cidAll"] is not None and len(request["cidAll"]) == 4:
        if mode == "garbage":
            print("panic: runtime error: index out of range [4] with length 4", flush=True)
            continue
        if mode == "wrong-id":
            print(json.dumps({"id": rid + 1, "answers": []}), flush=True)
            continue
        if mode == "unsupported":
            print(json.dumps({"id": rid, "unsupported": "four clients are beyond me"}), flush=True)
            continue
    mq_all = None if request["mqAll"] is None else [MessageQueue(*q) for q in request["mqAll"]]
    answers = []
    for caller in request["callers"]:
        try:
            got = AllocateMessageQueueAveragely().allocate(request["consumerGroup"], caller, mq_all, request["cidAll"])
            answers.append({"queues": [[q.topic, q.broker_name, q.queue_id] for q in got]})
        except ValueError as exc:
            answers.append({"error": "illegal-argument", "message": str(exc)})
    print(json.dumps({"id": rid, "answers": answers}), flush=True)
'''


@pytest.fixture
def project(pytester):
    pytester.makepyfile(crashers=CRASHERS, says=SAYS)
    pytester.syspathinsert()
    return pytester


def four_client_cases(golden):
    return [c for c in golden.by_strategy("AVG") if "5.3.3" in c.runs and c.cid_all is not None and len(c.cid_all) == 4]


@pytest.mark.heavy
@pytest.mark.once  # every Python runs the harness over a part of every family (test_protocol's real run)
def test_the_python_harness_passes_every_golden_case_of_every_family(project, golden):
    result = project.runpytest(*Q, f"--rmq-strategy={PYTHON_HARNESS}", "--rmq-checks=golden,sort")
    assert result.ret == 0, result.stdout.str()
    cases = sum(1 for case in golden.cases if "5.3.3" in case.runs)
    producer = len(load_golden(golden_dir() / "producer").cases)
    grpc = len(load_golden(golden_dir() / "grpc").cases)
    # golden and sort per allocation case, golden per producer and gRPC case, and test_sort_generated
    assert result.parseoutcomes() == {"passed": 2 * cases + producer + grpc + 1}
    result.stdout.fnmatch_lines(
        [
            "rmq-conformance: strategy exec:* (--rmq-strategy): harness * (exec), name pytest-rmq-conformance reference ports",
            "rmq-conformance: harness pytest-rmq-conformance reference ports * (Python *): families AVG, AVG_BY_CIRCLE, "
            "CONFIG, CONSISTENT_HASH, FAULT_STRATEGY, GROUP_HASH, MACHINE_ROOM, MACHINE_ROOM_NEARBY, PUBLISH_ROUND_ROBIN, "
            "SELECTOR_HASH, SELECTOR_RANDOM, SUBSCRIBE_ROUND_ROBIN; sort checked",
            f"rmq-conformance: golden vectors: {cases + producer + grpc} AVG/AVG_BY_CIRCLE/CONFIG/CONSISTENT_HASH/FAULT_STRATEGY/"
            "GROUP_HASH/MACHINE_ROOM/MACHINE_ROOM_NEARBY/PUBLISH_ROUND_ROBIN/SELECTOR_HASH/SELECTOR_RANDOM/SUBSCRIBE_ROUND_ROBIN cases",
        ]
    )


@pytest.mark.parametrize(
    "name, says",
    [
        ("ExitsOnFourClients", "exited with status 3 before it answered allocate request *"),
        ("SegfaultsOnFourClients", "was killed by signal SIGSEGV before it answered allocate request *"),
        pytest.param(  # each crashing case waits out its time limit: Python-neutral, and the slowest
            "PrintsAndHangsOnFourClients",
            "did not answer allocate request * within * s (--rmq-timeout per caller); it was stopped*",
            marks=pytest.mark.once,
        ),
    ],
)
def test_an_isolated_strategy_that_dies_fails_the_case_in_flight_and_the_run_goes_on(project, golden, name, says):
    crashing, selection, cases = len(four_client_cases(golden)), [], 398
    if name == "PrintsAndHangsOnFourClients":  # each hang waits out its limit: three of them, among three others
        others = [c for c in golden.by_strategy("AVG") if "5.3.3" in c.runs and c not in four_client_cases(golden)]
        chosen = [c.id for c in four_client_cases(golden)[:3] + others[:3]]
        # the test's own limit, far beyond what an honest answer needs on a loaded machine
        crashing, selection, cases = 3, ["-k", " or ".join(chosen), "--rmq-timeout=1"], 6
    result = project.runpytest(
        *Q, f"--rmq-strategy=crashers:{name}", "--rmq-isolate", "--rmq-checks=golden", f"--rmq-max-restarts={crashing}", *selection,
    )
    assert result.ret == 1
    counts = result.parseoutcomes()
    assert counts["failed"] == crashing and counts["passed"] == cases - crashing, result.stdout.str()
    result.stdout.fnmatch_lines([f"*{says}*"])
    if name == "PrintsAndHangsOnFourClients":
        result.stdout.fnmatch_lines(["*    | thinking about*"])  # what it printed went to the stderr tail


def test_after_the_last_restart_the_rest_is_not_run(project):
    result = project.runpytest(*Q, "--rmq-strategy=crashers:ExitsOnFourClients", "--rmq-isolate", "--rmq-checks=golden", "--rmq-max-restarts=1")
    assert result.ret == 1
    counts = result.parseoutcomes()
    assert counts["failed"] == 2, result.stdout.str()  # the first process and its one replacement
    assert counts["skipped"] > 300
    result.stdout.fnmatch_lines(["SKIPPED * not run: the harness was restarted 1 times (the limit, --rmq-max-restarts) after faults*"])


@pytest.mark.cross_product
@pytest.mark.parametrize(
    "mode, says",
    [
        ("garbage", "wrote a line that is not JSON in answer to allocate request *: 'panic: runtime error: index out of range [[]4[]] with length 4'*"),
        ("wrong-id", "answered allocate request * with id *"),
    ],
)
def test_a_harness_that_writes_the_wrong_thing_fails_that_case(project, golden, mode, says):
    crashing = len(four_client_cases(golden))
    result = project.runpytest(*Q, f"--rmq-strategy=exec:{sys.executable} says.py {mode}", "--rmq-checks=golden", f"--rmq-max-restarts={crashing}")
    assert result.ret == 1
    assert result.parseoutcomes()["failed"] == crashing
    result.stdout.fnmatch_lines([f"*{says}*"])
    result.stdout.fnmatch_lines(['rmq-conformance: harness says 0 (Python): families AVG; skipped: sort (its hello says "sort": false); '
                                 "every check of AVG_BY_CIRCLE, * (not in its hello's strategies); unknown to this suite, ignored: NEWFANGLED"])


def test_what_a_harness_does_not_implement_is_skipped_never_passed(project, golden):
    result = project.runpytest(*Q, f"--rmq-strategy=exec:{sys.executable} says.py unsupported", "--rmq-checks=golden")
    assert result.ret == 0
    assert result.parseoutcomes()["skipped"] == len(four_client_cases(golden))
    result.stdout.fnmatch_lines(["SKIPPED * not implemented: four clients are beyond me"])


def test_a_harness_that_implements_nothing_fails_the_run_in_one_line(project):
    """Every golden case answered unsupported: nothing was judged against Java, so no exit status 0."""
    result = project.runpytest(*Q, f"--rmq-strategy=exec:{sys.executable} says.py nothing", "--rmq-checks=golden")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-1500:]
    assert "passed" not in result.parseoutcomes() and "failed" not in result.parseoutcomes()
    result.stdout.fnmatch_lines(["rmq-conformance: no golden case was judged against Java: all * asked were skipped "
                                 "(not implemented: not yet); the run fails"])


def test_a_family_left_unimplemented_is_named_and_the_others_judge_the_run(project, golden):
    result = project.runpytest(*Q, f"--rmq-strategy=exec:{sys.executable} says.py avg-only", "--rmq-checks=golden")
    assert result.ret == 0, result.stdout.str()[-1500:]
    result.stdout.fnmatch_lines(["rmq-conformance: no CONSISTENT_HASH case was judged against Java: all * skipped (not implemented: not yet)"])
    assert "no AVG case" not in result.stdout.str()


def test_a_skip_file_that_lists_every_case_judges_nothing(project, tmp_path):
    skips = tmp_path / "skips.txt"
    skips.write_text("*  # every case\n")
    result = project.runpytest(*Q, "--rmq-strategy=CONFIG", "--rmq-checks=golden", f"--rmq-skip-file={skips}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["rmq-conformance: no golden case was judged against Java: all 22 asked were skipped (*"])


def test_a_harness_serving_a_family_by_a_typo_is_a_usage_error(project):
    result = project.runpytest(*Q, f"--rmq-strategy=exec:{sys.executable} says.py typo")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *the harness's hello serves 'CONSISTENT_HAHS', which is no family of this suite; "
                                 "did you mean CONSISTENT_HASH?"])


def test_a_harness_that_never_says_hello_is_a_usage_error(project):
    result = project.runpytest(*Q, f"--rmq-strategy=exec:{sys.executable} says.py silent")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *the harness never said hello: *exited with status 0 before it answered hello*"])


def test_a_harness_command_that_cannot_start_is_a_usage_error(project):
    result = project.runpytest(*Q, "--rmq-strategy=exec:./no-such-harness --fast")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert re.search(r"cannot start ./no-such-harness --fast: .*No such file", result.stderr.str())


def test_isolation_needs_a_strategy_another_process_can_import(project):
    project.makeconftest("from crashers import ExitsOnFourClients\n\ndef pytest_rmq_strategies(config):\n    return {'mine': ExitsOnFourClients()}\n")
    result = project.runpytest(*Q, "--rmq-strategy=mine", "--rmq-isolate", "--rmq-checks=golden")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *--rmq-isolate: another process cannot import this strategy*"])
