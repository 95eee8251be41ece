"""The plugin as its users run it: options, header, reports, lists, hooks, robustness."""

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from docs_pages import block_after
from miniatures import MINIATURES, PLUGIN_ARGS

from pytest_rmq_conformance.engine.golden.data import read_cases, shipped_releases
from pytest_rmq_conformance.engine.kinds import ports
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.plugin.terminal import GROUP_SHOWN, MANY
from pytest_rmq_conformance.releases import RELEASES

Q = ["-p", "no:cacheprovider"]
#: these tests are about the golden replay and the plugin's plumbing; the generated checks
#: have their own tests (test_generated.py)
GOLDEN_ONLY = "--rmq-checks=golden"

REFERENCE_CLASS_NAMES = [cls.__name__ for cls in ports("allocation").values()]


def outcomes(result):
    """The run's outcome counts, without the tests ``--rmq-checks`` deselected."""
    counts = result.parseoutcomes()
    counts.pop("deselected", None)
    return counts


def run(pytester, *args, generated=False):
    return pytester.runpytest(*Q, *([] if generated else [GOLDEN_ONLY]), *args)


#: the whole suite through the plugin, each built-in name at one release and each release twice,
#: the releases that differ (MACHINE_ROOM at 4.7.1, CONSISTENT_HASH at 4.9.8) among them; every
#: vector of every release is replayed against every port in test_golden_replay.py, and every
#: family's vectors through the plugin by test_every_reference_class_passes_in_an_empty_directory
BUILT_IN_RUNS = [
    ("AVG", "5.3.3"),
    ("AVG_BY_CIRCLE", "4.9.8"),
    ("CONFIG", "4.7.1"),
    ("CONSISTENT_HASH", "4.9.8"),
    ("MACHINE_ROOM", "4.7.1"),
    ("MACHINE_ROOM_NEARBY", "5.3.3"),
]


def test_the_built_in_runs_cover_every_name_and_release():
    assert sorted(name for name, _ in BUILT_IN_RUNS) == sorted(ports("allocation"))
    assert sorted(release for _, release in BUILT_IN_RUNS) == sorted(RELEASES * 2)


@pytest.mark.cross_product
@pytest.mark.parametrize("name, release", BUILT_IN_RUNS)
def test_every_built_in_name_passes_the_whole_suite(pytester, name, release):
    result = run(pytester, f"--rmq-strategy={name}", f"--rmq-reference-version={release}", "--rmq-examples=8", generated=True)
    assert result.ret == 0, result.stdout.str()
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] > 20 and "failed" not in outcomes


@pytest.mark.cross_product
@pytest.mark.parametrize("cls", REFERENCE_CLASS_NAMES)
def test_every_reference_class_passes_in_an_empty_directory(pytester, cls):
    result = run(pytester, f"--rmq-strategy=pytest_rmq_conformance.ports.allocation:{cls}")
    assert result.ret == 0, result.stdout.str()
    assert "failed" not in result.parseoutcomes()


def test_header_names_strategy_release_and_their_sources(pytester, monkeypatch):
    result = run(pytester, "--rmq-strategy=CONSISTENT_HASH", "--co")
    result.stdout.fnmatch_lines(
        [
            "rmq-conformance: strategy CONSISTENT_HASH (--rmq-strategy): built-in reference port "
            "AllocateMessageQueueConsistentHash, name CONSISTENT_HASH",
            "rmq-conformance: RocketMQ 5.5.0 (default), charset UTF-8, answers compared as sets, 5 s per call",
            "rmq-conformance: golden vectors: 439 CONSISTENT_HASH cases",
        ]
    )
    monkeypatch.setenv("RMQ_STRATEGY", "pytest_rmq_conformance.ports.allocation:AllocateMessageQueueAveragely")
    monkeypatch.setenv("RMQ_REFERENCE_VERSION", "4.9.8")
    result = run(pytester, "--pyargs", "pytest_rmq_conformance.suite", "--co", "--rmq-strict-order")
    result.stdout.fnmatch_lines(
        [
            "rmq-conformance: strategy pytest_rmq_conformance.ports.allocation:AllocateMessageQueueAveragely ($RMQ_STRATEGY):"
            " class pytest_rmq_conformance.ports.allocation.averagely.AllocateMessageQueueAveragely (*) from *averagely.py, name AVG",
            "rmq-conformance: RocketMQ 4.9.8 ($RMQ_REFERENCE_VERSION), charset UTF-8, answers compared as lists*",
        ]
    )
    monkeypatch.delenv("RMQ_STRATEGY")
    monkeypatch.delenv("RMQ_REFERENCE_VERSION")
    pytester.makeini("[pytest]\nrmq_strategy = MACHINE_ROOM\nrmq_reference_version = 4.7.1\n")
    result = run(pytester, "--rmq-suite", "--co")
    result.stdout.fnmatch_lines(["rmq-conformance: strategy MACHINE_ROOM (ini rmq_strategy):*", "*RocketMQ 4.7.1 (ini*"])


@pytest.mark.parametrize("where", ["env", "ini"])
def test_a_strategy_from_env_or_ini_runs_the_suite_like_the_option(pytester, monkeypatch, where):
    """With no test paths, ``$RMQ_STRATEGY`` or ini ``rmq_strategy`` runs the shipped suite, as
    ``--rmq-strategy`` does: not a header over ``collected 0 items``."""
    if where == "env":
        monkeypatch.setenv("RMQ_STRATEGY", "CONFIG")
    else:
        pytester.makeini("[pytest]\nrmq_strategy = CONFIG\n")
    result = run(pytester)
    origin = "$RMQ_STRATEGY" if where == "env" else "ini rmq_strategy"
    result.stdout.fnmatch_lines([f"rmq-conformance: strategy CONFIG ({origin}):*"])
    assert result.ret == 0 and outcomes(result)["passed"] >= 22, result.stdout.str()[-2000:]
    assert outcomes(run(pytester, "--rmq-strategy=CONFIG")) == outcomes(result)


def test_the_readmes_strategy_with_its_name_mistyped_is_a_usage_error(pytester):
    """``name = "Avg"`` would run the invariants only and exit 0: the README's promise that exit
    status 0 means it computes what Java computes would not hold."""
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    readme = re.search(r"```python\n(# my_allocation.py\n.*?)```", readme, re.DOTALL).group(1)
    pytester.makepyfile(my_allocation=readme.replace('name = "AVG"', 'name = "Avg"'))
    pytester.syspathinsert()
    result = run(pytester, "--rmq-strategy=my_allocation:Averagely", generated=True)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --rmq-strategy=my_allocation:Averagely: name 'Avg' is no family of this suite; did you mean AVG?*"])


def test_without_a_strategy_the_suite_uses_rocketmqs_default(pytester):
    result = run(pytester, "--pyargs", "pytest_rmq_conformance.suite")
    result.stdout.fnmatch_lines(["rmq-conformance: strategy AVG (default)*"])
    assert result.ret == 0


def test_plain_pytest_is_untouched(pytester):
    pytester.makepyfile("def test_own():\n    pass\n")
    result = run(pytester)
    assert outcomes(result) == {"passed": 1}
    assert "rmq-conformance:" not in result.stdout.str()


def test_suite_joins_a_projects_own_tests(pytester):
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = run(pytester, "test_own.py", "--rmq-suite", "--rmq-strategy=CONFIG")
    assert result.parseoutcomes()["passed"] == 1 + 22
    result = run(pytester, "test_own.py", "--rmq-strategy=CONFIG")
    assert outcomes(result) == {"passed": 1}


def test_failure_report_names_case_inputs_diff_and_rerun_line(suite):
    result = run(suite, "--rmq-strategy=miniatures:AvgRemainderToLast")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "pub-AVG-0002-published-example at RocketMQ 5.5.0: 8 missing and 8 extra queue(s)",
            "  inputs (published-example): 16 queues (1 topic(s), 1 broker(s)); 2 clients *; no params",
            "  2 of 2 caller(s) answered differently from Java:",
            "  currentCID='192.168.0.2@*': 8 missing and 8 extra queue(s)",
            "      missing: TopicTest@broker-a: 0 1 2 3 4 5 6 7",
            "      extra:   TopicTest@broker-a: 8 9 10 11 12 13 14 15",
            "*",
            "  rerun: pytest --rmq-strategy=miniatures:AvgRemainderToLast --rmq-reference-version=5.5.0 "
            "--rmq-checks=golden --rmq-case=pub-AVG-0002-published-example",
        ]
    )
    rerun = re.search(r"rerun: pytest (.*--rmq-case=pub-AVG-0002-published-example)", result.stdout.str()).group(1)
    again = run(suite, *rerun.split())
    assert outcomes(again) == {"failed": 1}


def test_many_failures_of_one_cause_are_grouped(suite):
    result = run(suite, "--rmq-strategy=miniatures:AvgWrongErrorType")
    output = result.stdout.str()
    failed = result.parseoutcomes()["failed"]
    shown = output.count("\n_____")  # a section per failure shown
    assert output.count("answered differently from Java") >= 3
    assert shown < 3 * GROUP_SHOWN + MANY < failed, "past MANY failures of a cause, the rest are counted, not shown"
    result.stdout.fnmatch_lines(
        [
            "*rmq-conformance: summary*",
            "  1?? x Java threw IllegalArgumentException(…); expected ValueError, but raised TypeError: currentCID is empty",
            "        e.g. test_golden[[]pub-AVG-*[]], test_golden[[]pub-AVG-*[]], test_golden[[]pub-AVG-*[]], and 1?? more (not shown*",
            "* failing case(s) in 3 group(s)",
            "by impact: *",
            "=* failed* in *",
        ]
    )


def test_every_junit_entry_and_results_line_carries_its_own_whole_report(suite, tmp_path):
    """Grouping by cause is the terminal's view: a CI viewer shows each junit case alone, so none
    may read "same cause as ..., shown above"; nor may a line of --rmq-results."""
    import xml.etree.ElementTree as ET

    junit, out = tmp_path / "junit.xml", tmp_path / "results.jsonl"
    result = run(suite, "--rmq-strategy=miniatures:AvgWrongErrorType", f"--junitxml={junit}", f"--rmq-results={out}")
    assert "same cause as" in result.stdout.str()  # the terminal still groups
    failures = [(case.get("name"), case.find("failure")) for case in ET.parse(junit).iter("testcase")]
    failures = [(name, failure.text or "") for name, failure in failures if failure is not None]
    assert len(failures) == result.parseoutcomes()["failed"] > MANY
    for name, text in failures:
        assert "same cause as" not in text and "answered differently from Java" in text, (name, text[:300])
        assert name.removeprefix("test_golden[").removesuffix("]") in text.splitlines()[0]
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    failed = [line for line in lines if line["verdict"] == "failed"]
    assert len(failed) == len(failures)
    assert all(line["report"] and "same cause as" not in line["report"] and line["case"] in line["report"] for line in failed)
    assert all(line["report"] is None for line in lines if line["verdict"] != "failed")


def test_xfail_file_and_skip_file(suite):
    suite.path.joinpath("known.txt").write_text(
        "# known divergences\n"
        "pub-AVG-0*   remainder goes to the last clients\n"
        "pub-NOPE-*\n"
    )
    suite.path.joinpath("skip.txt").write_text("pub-AVG-00[0-4]*\n")
    result = run(
        suite,
        "--rmq-strategy=miniatures:AvgRemainderToLast",
        "--rmq-xfail-file=known.txt",
        "--rmq-skip-file=skip.txt",
        "-rxs",
    )
    assert result.ret == 0, result.stdout.str()
    outcomes = result.parseoutcomes()
    # pub-AVG-0000..0049 skipped; the other listed cases xfail, or xpass where the mistake does not show
    assert outcomes["skipped"] == 49 and outcomes["xfailed"] + outcomes["xpassed"] == 349
    assert "failed" not in outcomes and outcomes["xfailed"] > 300
    result.stdout.fnmatch_lines(["*SKIPPED*skip.txt:1: listed*"])
    result.stdout.fnmatch_lines(["XFAIL *pub-AVG-0050-grid* - known.txt:2: remainder goes to the last clients"])
    result.stdout.fnmatch_lines(["*known.txt:3: entry 'pub-NOPE-*' matches no collected test*"])


def test_missing_list_file_is_a_usage_error(pytester):
    result = run(pytester, "--rmq-strategy=AVG", "--rmq-xfail-file=nope.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--rmq-xfail-file=nope.txt: cannot read*"])


def test_order_is_compared_only_when_strict(suite):
    assert run(suite, "--rmq-strategy=miniatures:NearbyOwnRoomLast").ret == 0
    result = run(suite, "--rmq-strategy=miniatures:NearbyOwnRoomLast", "--rmq-strict-order")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*the same queues as Java, in a different order*"])
    result.stdout.fnmatch_lines(["*rerun: pytest * --rmq-strict-order --rmq-checks=golden --rmq-case=*"])


def test_charset_option_selects_the_latin1_vectors(suite):
    result = run(suite, "--rmq-strategy=CONSISTENT_HASH", "--rmq-reference-version=4.9.8", "--rmq-charset=ISO-8859-1")
    assert outcomes(result) == {"passed": 18}
    result = run(
        suite, "--rmq-strategy=miniatures:HashIgnoresCharset", "--rmq-reference-version=4.9.8", "--rmq-charset=latin1"
    )
    assert result.ret == 1 and result.parseoutcomes()["failed"] == 16


@pytest.mark.cross_product
@pytest.mark.parametrize("name", sorted(MINIATURES))
def test_every_wrong_strategy_is_rejected_through_the_plugin(suite, name):
    """Each deliberately wrong strategy of tests/miniatures.py makes the run exit 1
    (order-only mistakes under --rmq-strict-order, the only mode that can see them;
    a charset mistake at the release and charset it concerns)."""
    result = run(suite, f"--rmq-strategy=miniatures:{name}", *PLUGIN_ARGS.get(name, []), "--maxfail=1")  # one failure proves it
    assert result.ret == 1
    assert result.parseoutcomes()["failed"] >= 1


HANGS = """
import time
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely

class HangsOnThreeClients(AllocateMessageQueueAveragely):
    def allocate(self, group, cid, mq_all, cid_all):
        if cid_all is not None and len(cid_all) == 3:
            while True:
                time.sleep(0.01)
        return super().allocate(group, cid, mq_all, cid_all)

class SpinsOnThreeClients(AllocateMessageQueueAveragely):
    def allocate(self, group, cid, mq_all, cid_all):
        spins = 0
        while cid_all is not None and len(cid_all) == 3:
            spins += 1  # (a loop made of nothing but a try block cannot be interrupted on Python 3.10)
            try:
                spins -= 1
            except Exception:  # the time limit is not an Exception: this cannot swallow it
                pass
        return super().allocate(group, cid, mq_all, cid_all)
"""


@pytest.mark.cross_product
@pytest.mark.parametrize("name", ["HangsOnThreeClients", "SpinsOnThreeClients"])
def test_a_hanging_strategy_is_cut_off_and_the_run_goes_on(pytester, name):
    pytester.makepyfile(hangs=HANGS)
    pytester.syspathinsert()
    # the limit is the test's own: 1 s is far beyond what an honest call of AVG needs, even on a loaded machine
    result = run(pytester, f"--rmq-strategy=hangs:{name}", "--rmq-timeout=1", "--rmq-max-hangs=2")
    assert result.ret == 1
    hung = [line for line in result.stdout.lines if line.startswith("  currentCID=") and "did not return" in line]
    assert len(hung) == 2
    assert result.parseoutcomes()["passed"] >= 5  # cases before the second hang conform
    result.stdout.fnmatch_lines(
        [
            "*did not return: took longer than 1 s (--rmq-timeout)*",
            "*not replayed: the strategy already overran the per-call limit 2 times (--rmq-max-hangs=2)*",
        ]
    )


def test_the_hang_budget_is_spent_once_per_run_under_xdist(pytester):
    pytester.makepyfile(hangs=HANGS)
    result = pytester.runpytest_subprocess(
        *Q, GOLDEN_ONLY, "--rmq-strategy=hangs:HangsOnThreeClients", "--rmq-timeout=1", "--rmq-max-hangs=2", "-n", "2"
    )
    assert result.ret == 1
    hung = int(re.search(r"(\d+) x did not return", result.stdout.str()).group(1))  # the causes' closing count
    # a budget per worker would let each of the two hang twice; a shared one stops both after two,
    # give or take the one call the other worker had in flight when the second hang was counted
    assert 2 <= hung <= 3, result.stdout.str()
    result.stdout.fnmatch_lines(["*not replayed: the strategy already overran the per-call limit * times (--rmq-max-hangs=2)*"])


BAD = """
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely

class Raises(AllocateMessageQueueAveragely):
    def allocate(self, *args):
        raise RuntimeError("boom")

class ReturnsNumber(AllocateMessageQueueAveragely):
    def allocate(self, *args):
        return 42

class SortsItsArgument(AllocateMessageQueueAveragely):
    def allocate(self, group, cid, mq_all, cid_all):
        if cid_all:
            cid_all.sort()
        return super().allocate(group, cid, mq_all, cid_all)

class Nameless:
    def allocate(self, *args):
        return []

class NeedsTwoPositionals:
    name = "AVG"
    def __init__(self, a, b):
        pass
    def allocate(self, *args):
        return []

class ThreeArguments:
    name = "AVG"
    def allocate(self, cid, mq_all, cid_all):
        return []

def refusing_factory(**keywords):
    raise RuntimeError("no configuration suits me")

class Sticky:
    name = "STICKY"
    def allocate(self, group, cid, mq_all, cid_all):
        return []

NOT_A_STRATEGY = 42
"""


@pytest.mark.parametrize(
    "spec, line",
    [
        ("bad:Raises", "*Java returned * queue(s), but raised RuntimeError: boom*"),
        ("bad:ReturnsNumber", "*but returned int 42, not a list of MessageQueue*"),
        ("bad:SortsItsArgument", "*modified its argument cid_all*"),
    ],
)
def test_misbehaving_strategies_fail_their_cases_clearly(pytester, spec, line):
    pytester.makepyfile(bad=BAD)
    pytester.syspathinsert()
    result = run(pytester, f"--rmq-strategy={spec}")
    assert result.ret == 1
    result.stdout.fnmatch_lines([line])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nosuchmodule:Thing", "--rmq-strategy=nosuchmodule:Thing: no module named 'nosuchmodule'*not installed*"),
        ("bda:Raises", "--rmq-strategy=bda:Raises: no module named 'bda' (did you mean bad?)*"),
        ("bad:Missing", "--rmq-strategy=bad:Missing: bad has no attribute Missing"),
        ("bad:Nameles", "*bad has no attribute Nameles (did you mean Nameless?)"),
        ("bad:ThreeArguments", "*AVG.allocate(cid, mq_all, cid_all) cannot be called as allocate(consumer_group, current_cid, mq_all, cid_all)*"),
        ("bad:refusing_factory", "*cannot build a strategy from factory bad.refusing_factory*RuntimeError: no configuration suits me (at *bad.py:*, in refusing_factory)"),
        ("bad:NOT_A_STRATEGY", "*gives int 42, which is not a strategy class, a factory, or an object with one of the methods allocate(), select(), take_message_queue_by_message_group()"),
        ("bad:Nameless", "*the strategy has no name (got None)*"),
        ("bad:NeedsTwoPositionals", "*cannot build a strategy from class bad.NeedsTwoPositionals*TypeError*"),
        ("NOSUCH", "--rmq-strategy=NOSUCH: no such strategy; give module:attribute, exec:COMMAND or one of AVG, *"),
        ("AVGG", "--rmq-strategy=AVGG: no such strategy (did you mean AVG?)*"),
        ("avg", "--rmq-strategy=avg: no such strategy (did you mean AVG?)*"),
    ],
)
def test_a_spec_that_cannot_be_loaded_is_a_usage_error(pytester, spec, message):
    """One message, exit status 4 (pytest's usage error), no test run."""
    pytester.makepyfile(bad=BAD)
    result = run(pytester, f"--rmq-strategy={spec}", "-rs")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert result.stderr.str().count("--rmq-strategy=") == 1
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()


NEARBY = Path(__file__).with_name("nearby.py")


@pytest.mark.parametrize("checks", [GOLDEN_ONLY, pytest.param("--rmq-seed=1", marks=pytest.mark.once)], ids=["golden", "whole"])
def test_a_nearby_strategy_whose_name_reads_its_inner_strategy_loads_and_passes(pytester, checks):
    """Issue 34 item 5: its name cannot be read until the probe builds it with its family's configuration."""
    pytester.makepyfile(nearby=NEARBY.read_text())
    pytester.syspathinsert()
    result = pytester.runpytest(*Q, "--rmq-strategy=nearby:Nearby", checks)
    assert result.ret == 0, result.stderr.str() + result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines(["*MACHINE_ROOM_NEARBY-AVG*"])
    assert outcomes(result)["passed"] >= (159 if checks == GOLDEN_ONLY else 170)


def test_a_strategy_without_java_twin_gets_no_golden_cases(pytester):
    pytester.makepyfile(bad=BAD)
    pytester.syspathinsert()
    result = run(pytester, "--rmq-strategy=bad:Sticky", "-rs")
    result.stdout.fnmatch_lines(
        [
            "rmq-conformance: name 'STICKY' has no Java twin: the golden vectors and the reference do not apply, only the invariants",
            "*SKIPPED*'STICKY' has no Java twin: no golden vectors apply*",
        ]
    )


@pytest.mark.once
def test_an_instance_runs_the_cases_its_configuration_matches(pytester):
    pytester.makepyfile(
        inst="from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueConsistentHash\n"
        "three = AllocateMessageQueueConsistentHash(3)\n"
        "def make(**keywords):\n"
        "    return AllocateMessageQueueConsistentHash(**keywords)\n"
    )
    pytester.syspathinsert()
    result = run(pytester, "--rmq-strategy=inst:three")
    assert result.ret == 0
    assert 10 < result.parseoutcomes()["passed"] < 200
    result.stdout.fnmatch_lines(
        ["rmq-conformance: golden vectors: * CONSISTENT_HASH cases; * of 439 cases need a configuration this instance*"]
    )
    result = run(pytester, "--rmq-strategy=inst:make")
    assert result.ret == 0
    assert result.parseoutcomes()["passed"] == 439
    result.stdout.fnmatch_lines(["*strategy inst:make (--rmq-strategy): factory inst.make (inst:make) from *inst.py, name CONSISTENT_HASH"])


CONFTEST_HOOKS = """
import json
from pathlib import Path

class Replicas:
    name = "CONSISTENT_HASH"
    def __init__(self, replicas):
        from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueConsistentHash
        self.inner = AllocateMessageQueueConsistentHash(replicas)
    def allocate(self, *args):
        return self.inner.allocate(*args)

def pytest_rmq_strategies(config):
    return {"replicas": Replicas}

def pytest_rmq_build_strategy(factory, keywords, case, config):
    if factory is Replicas:
        return Replicas(keywords.get("virtual_node_cnt", 10))

def pytest_rmq_case_outcome(outcome, config):
    with open("outcomes.jsonl", "a") as out:
        out.write(json.dumps([outcome.case.id, outcome.run, outcome.passed, outcome.strategy_name]) + "\\n")
"""


def test_hooks_name_build_and_observe(pytester):
    pytester.makeconftest(CONFTEST_HOOKS)
    result = run(pytester, "--rmq-strategy=replicas")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*strategy replicas (--rmq-strategy): class conftest.Replicas (pytest_rmq_strategies hook) from *conftest.py, name CONSISTENT_HASH"])
    seen = [json.loads(line) for line in pytester.path.joinpath("outcomes.jsonl").read_text().splitlines()]
    assert len(seen) == 439 and all(passed and run == "5.5.0" for _, run, passed, _ in seen)


def extra_golden(pytester, edit=None):
    """A golden directory holding one extra AVG case (a shipped one, renamed)."""
    extra = pytester.path / "extra"
    extra.mkdir()
    shutil.copy(golden_dir() / "manifest.json", extra)
    case = json.loads((golden_dir() / "AVG.jsonl").read_text().splitlines()[4])
    case["id"] = "team-AVG-0001-incident"
    if edit:
        edit(case)
    (extra / "AVG.jsonl").write_text(json.dumps(case) + "\n")
    pytester.makeconftest("from pathlib import Path\n\ndef pytest_rmq_golden_dirs(config):\n    return [Path(__file__).parent / 'extra']\n")


def test_golden_dirs_hook_adds_cases(pytester):
    extra_golden(pytester)
    result = run(pytester, "--rmq-strategy=AVG", "--rmq-case=team-*", "-v")
    result.stdout.fnmatch_lines(["*test_golden[[]team-AVG-0001-incident[]] PASSED*"])


@pytest.mark.parametrize(
    ("strategy", "pattern", "says"),
    [
        ("SELECTOR_HASH", "pub-SELECTOR_HASH-9999", "--rmq-case=pub-SELECTOR_HASH-9999: matches none of the * golden cases "
         "of SELECTOR_HASH at RocketMQ 5.5.0; nearest: pub-SELECTOR_HASH-*"),
        ("AVG", "nothing-like-it", "--rmq-case=nothing-like-it: matches none of the * golden cases of AVG at RocketMQ 5.5.0; "
         "they run from pub-AVG-0001-* to *"),
    ],
)
def test_a_case_pattern_that_matches_no_case_is_a_usage_error_naming_it(pytester, strategy, pattern, says):
    result = run(pytester, f"--rmq-strategy={strategy}", "--rmq-case=pub-*", f"--rmq-case={pattern}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {says}"])


def test_malformed_golden_data_fails_once_naming_file_and_case(pytester):
    extra_golden(pytester, lambda case: case.update(mqAll="broken"))
    result = run(pytester, "--rmq-strategy=AVG")
    assert result.ret == 1
    assert outcomes(result) == {"failed": 1}
    result.stdout.fnmatch_lines(["*malformed golden data: *extra/AVG.jsonl:1 (case team-AVG-0001-incident): breaks*"])


def test_third_party_package_registers_a_strategy_by_entry_point(pytester):
    package = pytester.mkpydir("thirdparty")
    package.joinpath("alloc.py").write_text(
        "from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragelyByCircle as Circle\n"
    )
    info = pytester.path / "thirdparty-1.0.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: thirdparty\nVersion: 1.0\n")
    info.joinpath("entry_points.txt").write_text("[rmq_conformance.strategies]\ncircle = thirdparty.alloc:Circle\n")
    pytester.syspathinsert()
    result = run(pytester, "--rmq-strategy=circle")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*strategy circle (--rmq-strategy): class *(entry point in rmq_conformance.strategies) from *, name AVG_BY_CIRCLE"])


def test_ids_are_stable_and_runs_under_xdist(pytester):
    def collected():
        lines = run(pytester, "--rmq-strategy=CONFIG", "--collect-only", "-q", generated=True).stdout.lines
        return [line for line in lines if "::" in line]

    first = collected()
    assert first == collected() and "test_golden.py::test_golden[pub-CONFIG-0001-list]" in first
    assert "test_one_answer.py::test_one_answer[process]" in first
    assert "test_invariants.py::test_invariant_of_a_group[no-double-assignment]" in first
    conftest = (
        "from pytest_rmq_conformance.plugin import rmq_state\n\n"
        "def pytest_sessionfinish(session):\n    import os\n"
        "    open(f'seed-{os.getpid()}', 'w').write(str(rmq_state(session.config).settings.seed))\n"
    )
    pytester.makeconftest(conftest)
    result = pytester.runpytest_subprocess(*Q, "--rmq-strategy=CONFIG", "--rmq-examples=5", "-n", "2")
    assert result.ret == 0, result.stdout.str()
    # 22 golden cases, 7 one-answer checks, and the invariants CONFIG has:
    # balance, stable-on-leave, and both again through membership changes
    assert result.parseoutcomes()["passed"] == 32
    header_seed = re.search(r"--rmq-seed=(\d+)", result.stdout.str()).group(1)
    seeds = {path.read_text() for path in pytester.path.glob("seed-*")}
    assert seeds == {header_seed}, "the controller and every worker generate from one seed"


@pytest.mark.cross_product
@pytest.mark.parametrize("release", RELEASES)
def test_the_example_strategy_conforms(pytester, monkeypatch, release):
    example = Path(__file__).resolve().parent.parent / "examples" / "averagely"
    monkeypatch.syspath_prepend(str(example))
    result = run(pytester, "--rmq-strategy=my_allocation:Averagely", f"--rmq-reference-version={release}")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == 398


@pytest.mark.parametrize("family, release", [("GROUP_HASH", "4.9.8"), ("SUBSCRIBE_ROUND_ROBIN", "4.7.1")])
def test_a_family_at_a_release_without_its_vectors_is_a_usage_error(pytester, family, release):
    """Issue 34 item 7: it ran the generated checks only, under a header claiming Java's family at that release."""
    result = pytester.runpytest(*Q, f"--rmq-strategy={family}", f"--rmq-reference-version={release}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0] == (
        f"ERROR: --rmq-reference-version={release}: no golden vectors for {family} at RocketMQ {release}; it has them at 5.3.3"
    )
    assert "passed" not in result.stdout.str()


#: the family of docs/how-to/extend.md, and a member of it that loses a queue
ROTATE = block_after("A package adds a family by registering one", "python") + """

class LosesTheLastQueue(Rotate):
    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return [mq for mq in super().allocate(consumer_group, current_cid, mq_all, cid_all) if mq != mq_all[-1]]
"""


@pytest.mark.cross_product
@pytest.mark.parametrize("name, status", [("Rotate", 0), ("LosesTheLastQueue", 1)])
def test_a_family_of_its_own_without_vectors_is_held_to_its_invariants(pytester, name, status, toy_registered, monkeypatch):
    """A family no Java class has, with no golden vectors at any release, is no usage error: its
    invariants and its own reference judge it, and a member that loses a queue fails them. (The
    family is forgotten afterwards: a later test of this worker sees the built-in ones only.)"""
    monkeypatch.delitem(sys.modules, "rotate", raising=False)
    pytester.makepyfile(rotate=ROTATE)
    pytester.syspathinsert()
    result = pytester.runpytest(*Q, f"--rmq-strategy=rotate:{name}", "--rmq-seed=1")
    assert result.ret == status, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(["*golden vectors: 0 ROTATE cases*"])
    if status:
        result.stdout.fnmatch_lines(["*breaks coverage*"])


def test_vectors_a_golden_dir_adds_at_another_release_count(pytester):
    """The release check reads the hooks' golden directories too: one GROUP_HASH case at 4.9.8 is a run."""
    extra = pytester.path / "extra"
    extra.mkdir()
    manifest = json.loads((golden_dir() / "grpc" / "manifest.json").read_text())
    java = {key: value for key, value in manifest["runs"]["5.3.3+java-5.2.0"].items() if key != "sameAs"}
    manifest["runs"] = {"4.9.8+team": {**java, "rocketmq": "4.9.8"}}
    manifest["files"], manifest["sources"] = {"GROUP_HASH.jsonl": 1}, []
    (extra / "manifest.json").write_text(json.dumps(manifest))
    case = next(read_cases(golden_dir() / "grpc" / "GROUP_HASH.jsonl"))
    case["expect"] = case["expect"][-1:]
    case["id"], case["expect"][0]["runs"] = "team-GROUP_HASH-0001-at-4.9.8", ["4.9.8+team"]
    (extra / "GROUP_HASH.jsonl").write_text(json.dumps(case) + "\n")
    pytester.makeconftest("from pathlib import Path\n\ndef pytest_rmq_golden_dirs(config):\n    return [Path(__file__).parent / 'extra']\n")
    result = run(pytester, "--rmq-strategy=GROUP_HASH", "--rmq-reference-version=4.9.8", "-v")
    assert result.ret == 0, result.stderr.str() + result.stdout.str()
    result.stdout.fnmatch_lines(["*test_golden[[]team-GROUP_HASH-0001-at-4.9.8[]] PASSED*"])


@pytest.mark.parametrize(
    "release, message",
    [
        ("4.9.7", f"no golden vectors for RocketMQ 4.9.7: the golden data covers {', '.join(shipped_releases())}"),
        ("6.0", f"no golden vectors for a RocketMQ 6.0 release: the golden data covers {', '.join(shipped_releases())}"),
        ("6.0.x", "RocketMQ release must look like*"),
    ],
)
def test_a_release_without_golden_data_is_a_usage_error(pytester, release, message):
    result = run(pytester, "--rmq-strategy=AVG", f"--rmq-reference-version={release}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: *{message}*"])

