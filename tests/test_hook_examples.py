"""The Hooks page's examples work as a user copies them: each hook's example (its docstring's
``Example::`` block, which the page shows) becomes a project's ``conftest.py``, next to a
``mypkg`` of wrong or differently built strategies, and the run shows the hook's effect."""

from __future__ import annotations

import inspect
import json
import re
import shutil
import textwrap

import pytest

from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.plugin import hookspecs

Q = ["-p", "no:cacheprovider"]

#: the package the examples import: an averaging strategy that gives every client every queue
#: (wrong on every golden AVG case with two clients or more), a consistent hash that calls its
#: virtual node count ``replicas``, and a strategy of a family of its own that averages
MYPKG = '''
from pytest_rmq_conformance import AllocateMessageQueueAveragely, AllocateMessageQueueConsistentHash


class MyAveragely:
    name = "AVG"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return list(mq_all or [])


class MyHash:
    name = "CONSISTENT_HASH"

    def __init__(self, replicas):
        self.inner = AllocateMessageQueueConsistentHash(replicas)

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return self.inner.allocate(consumer_group, current_cid, mq_all, cid_all)


class Sticky(AllocateMessageQueueAveragely):
    name = "STICKY"
'''


def example(hook: str) -> str:
    """The ``Example::`` block of ``hook``'s docstring, as the page shows it."""
    doc = inspect.getdoc(getattr(hookspecs, hook)) or ""
    found = re.search(r"::\n\n((?:    .*\n|\n)+)", doc + "\n")
    assert found is not None, f"{hook} lost its example"
    return textwrap.dedent(found.group(1))


@pytest.fixture
def project(pytester):
    """A user's project: ``mypkg`` importable, the conftest still to write."""
    pytester.mkpydir("mypkg").joinpath("allocation.py").write_text(MYPKG)
    pytester.syspathinsert()
    return pytester


def run(pytester, hook: str, *args: str):
    code = example(hook)
    assert code.startswith("# conftest.py\n"), f"{hook}'s example does not say it is a conftest.py"
    pytester.makeconftest(code)
    return pytester.runpytest_subprocess(*Q, *args)


def test_every_hook_has_an_example_here():
    hooks = sorted(name for name in dir(hookspecs) if name.startswith("pytest_rmq_"))
    assert hooks == sorted(TESTED)


def test_strategies_hook_names_a_strategy(project):
    result = run(project, "pytest_rmq_strategies", "--rmq-strategy=mine", "--rmq-checks=golden")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(["*strategy mine (--rmq-strategy): class mypkg.allocation.MyAveragely (pytest_rmq_strategies hook)*"])


def test_build_hook_builds_a_strategy_whose_constructor_differs(project):
    result = run(project, "pytest_rmq_build_strategy", "--rmq-strategy=mypkg.allocation:MyHash", "--rmq-checks=golden")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == 439
    result.stdout.no_fnmatch_line("*not the keyword contract*")


def test_golden_dirs_hook_adds_cases(project):
    extra = project.path / "golden-extra"
    extra.mkdir()
    shutil.copy(golden_dir() / "manifest.json", extra)
    case = json.loads((golden_dir() / "AVG.jsonl").read_text().splitlines()[4])
    case["id"] = "team-AVG-0001-incident"
    (extra / "AVG.jsonl").write_text(json.dumps(case) + "\n")
    result = run(project, "pytest_rmq_golden_dirs", "--rmq-strategy=AVG", "--rmq-checks=golden", "--rmq-case=team-*", "-v")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*test_golden[[]team-AVG-0001-incident[]] PASSED*"])


def test_case_outcome_hook_sees_every_divergence(project):
    result = run(project, "pytest_rmq_case_outcome", "--rmq-strategy=mypkg.allocation:MyAveragely", "--rmq-checks=golden")
    failed = result.parseoutcomes()["failed"]
    assert failed > 10, result.stdout.str()
    result.stdout.fnmatch_lines([f"my report: {failed} golden cases diverged, first pub-AVG-*"])
    result.stdout.no_fnmatch_line("*AttributeError*")


@pytest.mark.once
def test_properties_hook_declares_what_is_checked(project):
    result = run(project, "pytest_rmq_properties", "--rmq-strategy=mypkg.allocation:Sticky", "--rmq-checks=invariants",
                 "--rmq-seed=1", "-v")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(["*test_invariant_across_a_change[[]stable-on-leave[]] FAILED*"])


TESTED = ["pytest_rmq_strategies", "pytest_rmq_build_strategy", "pytest_rmq_golden_dirs", "pytest_rmq_case_outcome",
          "pytest_rmq_properties"]
