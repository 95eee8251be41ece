"""The generated checks as users run them: each check rejects a strategy built to break it."""

import json
import re

import pytest
from breakers import BREAKERS, GOLDEN_BLIND

from pytest_rmq_conformance.plugin.state import SUITE_DIR

Q = ["-p", "no:cacheprovider", "-rf"]
MODULE = {
    "test_invariant_of_a_group": "test_invariants.py",
    "test_invariant_across_a_change": "test_invariants.py",
    "test_one_answer": "test_one_answer.py",
    "test_matches_reference": "test_reference.py",
    "test_rebalance_converges": "test_rebalance.py",
    "test_rebalance_churn": "test_rebalance.py",
}


def literal(text):
    """``text`` as an fnmatch pattern matching itself (brackets escaped)."""
    return re.sub(r"([\[\]])", r"[\1]", text)


def run(pytester, *args):
    return pytester.runpytest(*Q, *args)


@pytest.mark.cross_product  # the checks are Python-neutral: one breaker on every Python, each of them on one
@pytest.mark.parametrize("name", sorted(BREAKERS))
def test_each_check_rejects_the_strategy_built_to_break_it(suite, name):
    test, extra = BREAKERS[name]
    node = f"{SUITE_DIR / MODULE[test.split('[')[0]]}::{test}"
    # only the check that must catch it runs; a fixed seed keeps this test deterministic, and
    # benchmarks/detection.py measures how often the default profile catches each breaker over many seeds
    result = run(suite, node, f"--rmq-strategy=breakers:{name}", "--rmq-seed=1", *extra)
    assert result.ret == 1, result.stdout.str()
    assert result.parseoutcomes() == {"failed": 1}, result.stdout.str()
    result.stdout.fnmatch_lines([f"FAILED *::{literal(test)}*"])
    result.stdout.fnmatch_lines([f"*replay: pytest *{literal(test)}* --rmq-strategy=breakers:{name} *--rmq-seed=1*"])


@pytest.mark.cross_product
@pytest.mark.parametrize("name", GOLDEN_BLIND)
def test_the_golden_vectors_alone_miss_them(suite, golden, name):
    import breakers

    family = getattr(breakers, name).name
    cases = sum(1 for case in golden.by_strategy(family) if "5.3.3" in case.runs)
    result = run(suite, f"--rmq-strategy=breakers:{name}", "--rmq-checks=golden")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes() == {"passed": cases}  # every case of its family


@pytest.mark.once
def test_a_failure_prints_the_shrunk_group_and_replays_with_its_seed(suite):
    args = ["--rmq-strategy=breakers:Overlaps", "--rmq-checks=invariants", "--rmq-seed=7", "--rmq-shrink-time=120"]  # shrinking finishes, however loaded the machine
    first = run(suite, *args).stdout.str()
    group = json.loads(re.search(r"group as data: (.*)", first).group(1))
    # shrunk to the smallest kind of group that breaks it: two clients sharing one queue
    assert len(group["mqAll"]) == 1 and len(set(group["cidAll"])) == 2, group
    again = run(suite, *args).stdout.str()
    assert json.loads(re.search(r"group as data: (.*)", again).group(1)) == group


def test_a_hang_is_cut_off_without_stalling_the_run(suite):
    # the limit is the test's own, far beyond what an honest call needs on a loaded machine
    result = run(suite, "--rmq-strategy=breakers:SpinsOnUnicodeGroups", "--rmq-timeout=1.5", "--rmq-checks=invariants,one-answer,reference")
    assert result.ret == 1
    text = result.stdout.str()
    assert text.count("did not return within 1.5 s") == 3  # --rmq-max-hangs, then no more calls
    assert "not called again" in text and "group as data" in text


def test_the_invariants_a_strategy_claims_decide_its_checks(pytester):
    pytester.makepyfile(
        mine="""
        class Everything:
            name = "EVERYTHING"
            rmq_properties = {"one-answer"}
            def allocate(self, group, cid, mq_all, cid_all):
                return list(mq_all)
        """
    )
    pytester.syspathinsert()
    result = run(pytester, "--rmq-strategy=mine:Everything", "--rmq-checks=invariants")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*invariants: one-answer (declared in Everything.rmq_properties)"])
    pytester.makeconftest(
        """
        def pytest_rmq_properties(strategy, name, config):
            if name == "EVERYTHING":
                return {"coverage", "no-double-assignment"}
        """
    )
    result = run(pytester, "--rmq-strategy=mine:Everything", "--rmq-checks=invariants")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*invariants: coverage, no-double-assignment (declared by the pytest_rmq_properties hook)", "FAILED *[no-double-assignment]*"]
    )


def test_an_unknown_property_fails_loading_naming_it(pytester):
    pytester.makepyfile(
        mine="""
        class Claims:
            name = "CLAIMS"
            rmq_properties = {"coverage", "fairness"}
            def allocate(self, group, cid, mq_all, cid_all):
                return []
        """
    )
    pytester.syspathinsert()
    result = run(pytester, "--rmq-strategy=mine:Claims")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([literal("ERROR: *Claims.rmq_properties names unknown propert(ies) ['fairness']*")])


def test_a_worker_process_that_dies_is_reported(pytester):
    pytester.makepyfile(
        mine="""
        import os
        from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely

        class DiesUnderSeed2(AllocateMessageQueueAveragely):
            def allocate(self, group, cid, mq_all, cid_all):
                if os.environ.get("PYTHONHASHSEED") == "2":
                    os._exit(3)
                return super().allocate(group, cid, mq_all, cid_all)
        """
    )
    pytester.syspathinsert()
    result = run(pytester, "--rmq-strategy=mine:DiesUnderSeed2", "--rmq-checks=one-answer")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*worker PYTHONHASHSEED=2, clock +0 s died with exit code 3*", "FAILED *test_one_answer[[]process[]]*"])
    assert result.parseoutcomes()["passed"] == 6  # the other one-answer checks


def test_checks_option_rejects_unknown_parts(pytester):
    result = run(pytester, "--rmq-strategy=AVG", "--rmq-checks=golden,fuzz")
    assert result.ret != 0
    assert "--rmq-checks=golden,fuzz: unknown part(s) ['fuzz']" in result.stdout.str() + result.stderr.str()


def test_a_constructor_that_raises_on_a_generated_configuration_is_one_clear_failure(suite):
    """Every seed asks the family's edge configurations (``Family.edge_params``): 160 virtual
    nodes, which Java takes and this strategy's constructor refuses, is one report for the group."""
    node = f"{SUITE_DIR / 'test_reference.py'}::test_matches_reference"
    result = run(suite, node, "--rmq-strategy=breakers:RefusesManyNodes", "--rmq-seed=1", "--rmq-shrink-time=2")
    assert result.ret == 1
    assert result.parseoutcomes() == {"failed": 1}
    result.stdout.fnmatch_lines(
        [
            "CONSISTENT_HASH differs from the reference port * the strategy could not be built for this configuration "
            "(RuntimeError: at most 15 virtual nodes, not 160), which Java's constructor accepts",
            '      configuration: CONSISTENT_HASH, params {"virtualNodeCnt": 160}',
            "      raised at *breakers.py:*, in __init__",
            "      (one report for the group: every caller fails alike)",
            "  group as data: *",
            "  shrinking: *",
            "  replay: pytest *",
        ]
    )
    # the report, not a traceback through the suite and the engine
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*subject.py*")
    result.stdout.no_fnmatch_line("E  *")
