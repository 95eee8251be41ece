"""What a new user does in the first ten minutes, through the real command line: the `pytest`
console script started in a fresh directory, as the README says, and the lines it prints pasted
back into a shell."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PYTEST = str(Path(sys.executable).with_name("pytest"))

MYSTRAT = '''
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely


class Averagely:
    name = "AVG"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return AllocateMessageQueueAveragely().allocate(consumer_group, current_cid, mq_all, cid_all)


class LastQueueLost(Averagely):
    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        got = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        return [mq for mq in got if mq != mq_all[-1]]


class Raises(Averagely):
    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return pick(mq_all)


def pick(mq_all):
    raise RuntimeError("no queue for you")
'''

#: every fourth client count kills the process it runs in: served by the built-in harness
#: (--rmq-isolate), which answers sort too, it faults until the harness is given up
CRASHES = '''
import os
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely


class ExitsOnFourClients(AllocateMessageQueueAveragely):
    def allocate(self, group, cid, mq_all, cid_all):
        if cid_all is not None and len(cid_all) == 4:
            os._exit(3)
        return super().allocate(group, cid, mq_all, cid_all)
'''


def shell(command, cwd: Path) -> subprocess.CompletedProcess:
    """``command`` run as a user would paste it, with this environment's ``pytest`` first on PATH."""
    env = {**os.environ, "PATH": f"{Path(PYTEST).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)  # nothing but the installed package and the current directory
    env.pop("PYTEST_ADDOPTS", None)
    args = command if isinstance(command, str) else subprocess.list2cmdline(command)
    return subprocess.run(args, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture
def here(tmp_path):
    """A fresh directory holding the user's ``mystrat.py``, and nothing on ``sys.path``."""
    (tmp_path / "mystrat.py").write_text(MYSTRAT)
    return tmp_path


def test_exit_status_says_whose_fault_it_is(here):
    """0: it conforms; 1: it does not; 4: the command is wrong (pytest's usage error)."""
    conforms = shell("pytest -p no:cacheprovider --rmq-strategy=mystrat:Averagely --rmq-checks=golden", here)
    assert conforms.returncode == 0, conforms.stdout[-2000:]
    wrong = shell("pytest -p no:cacheprovider --rmq-strategy=mystrat:LastQueueLost --rmq-checks=golden", here)
    assert wrong.returncode == 1, wrong.stdout[-2000:]
    typo = shell("pytest -p no:cacheprovider --rmq-strategy=AVGG", here)
    assert typo.returncode == 4
    assert "ERROR: --rmq-strategy=AVGG: no such strategy (did you mean AVG?)" in typo.stderr
    assert "passed" not in typo.stdout and "failed" not in typo.stdout


def test_a_module_in_the_current_directory_or_the_rootdir_is_found(here):
    result = shell("pytest -p no:cacheprovider --rmq-strategy=mystrat:Averagely --rmq-checks=golden", here)
    assert result.returncode == 0, result.stdout[-2000:]
    assert f"class mystrat.Averagely (mystrat:Averagely) from {here / 'mystrat.py'}, name AVG" in result.stdout
    (here / "pytest.ini").write_text("[pytest]\n")
    (here / "sub").mkdir()
    result = shell("pytest -p no:cacheprovider --rmq-strategy=mystrat:Averagely --rmq-checks=golden", here / "sub")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert f"from {here / 'mystrat.py'}" in result.stdout


def test_an_installed_module_wins_over_a_local_one_of_the_same_name(here):
    shadow = here / "pytest_rmq_conformance"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('the local copy was imported')\n")
    spec = "pytest_rmq_conformance.ports.allocation:AllocateMessageQueueAveragely"
    result = shell(f"pytest -p no:cacheprovider --rmq-strategy={spec} --rmq-checks=golden", here)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    loaded = re.search(r"from (\S+averagely\.py), name AVG", result.stdout)
    assert loaded is not None and not Path(loaded.group(1)).is_relative_to(here)


@pytest.mark.once
def test_every_rerun_line_works_pasted_as_is(here):
    result = shell("pytest -p no:cacheprovider --rmq-strategy=mystrat:LastQueueLost --rmq-checks=golden,reference", here)
    assert result.returncode == 1
    reruns = re.findall(r"^  rerun: (pytest .*)$", result.stdout, re.MULTILINE)
    replays = re.findall(r"^  replay: (pytest .*)$", result.stdout, re.MULTILINE)
    assert reruns and replays, result.stdout[-3000:]
    assert all("--rmq-checks=golden" in line for line in reruns)
    case = re.search(r"--rmq-case=(\S+)", reruns[0]).group(1)
    again = shell(reruns[0], here)
    assert again.returncode == 1, again.stdout[-2000:]
    assert re.search(r"^=+ 1 failed(, \d+ deselected)? in", again.stdout, re.MULTILINE), again.stdout[-2000:]
    assert f"test_golden[{case}]" in again.stdout
    again = shell(replays[0], here)
    assert again.returncode == 1, again.stdout[-2000:]
    assert re.search(r"^=+ 1 failed in", again.stdout, re.MULTILINE), again.stdout[-2000:]


def test_a_replay_line_works_in_a_subdirectory_whose_rootdir_holds_the_strategy(here):
    """The strategy module is found through the rootdir (pytest.ini one level up): the replay line,
    pasted in the subdirectory, finds the same rootdir, so the same module."""
    (here / "pytest.ini").write_text("[pytest]\n")
    sub = here / "sub"
    sub.mkdir()
    result = shell("pytest -p no:cacheprovider --rmq-strategy=mystrat:LastQueueLost --rmq-checks=reference", sub)
    assert result.returncode == 1, result.stdout[-3000:]
    replay = re.search(r"^  replay: (pytest .*)$", result.stdout, re.MULTILINE).group(1)
    assert "--pyargs pytest_rmq_conformance.suite.test_reference::" in replay
    again = shell(replay, sub)
    assert again.returncode == 1, again.stdout[-2000:] + again.stderr
    assert re.search(r"^=+ 1 failed in", again.stdout, re.MULTILINE), again.stdout[-2000:]


def test_a_strategy_that_raises_shows_its_own_frames_under_tb_control(here):
    command = "pytest -p no:cacheprovider --rmq-strategy=mystrat:Raises --rmq-checks=golden --rmq-case=pub-AVG-0001-published-example"
    result = shell(command, here)
    assert result.returncode == 1
    shown = result.stdout[result.stdout.index("raised in the strategy's code:") :]
    assert "mystrat.py:" in shown and "in pick" in shown and "RuntimeError: no queue for you" in shown
    assert "pytest_rmq_conformance" not in shown.split("rmq-conformance: summary")[0]
    quiet = shell(f"{command} --tb=no", here)
    assert quiet.returncode == 1 and "raised in the strategy's code" not in quiet.stdout


def test_a_harness_that_gives_up_costs_one_line_not_one_per_case(here, tmp_path):
    """Part-way through the 5.3.3 golden and sort checks, the harness is given up: the cases left
    are "not run", counted in one summary line and in --rmq-results, and the run stays short."""
    (here / "crashes.py").write_text(CRASHES)
    results = tmp_path / "results.jsonl"
    result = shell(
        "pytest -p no:cacheprovider --rmq-strategy=crashes:ExitsOnFourClients --rmq-isolate "
        f"--rmq-reference-version=5.3.3 --rmq-checks=golden,sort --rmq-results={results}",
        here,
    )
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) < 200, "\n".join(lines[:60])
    announced = [i for i, line in enumerate(lines) if line.endswith("its stderr ended with:")]
    assert all(lines[i + 1].lstrip().startswith("|") for i in announced), "a stderr tail announced and not shown"
    summary = lines[[i for i, line in enumerate(lines) if "rmq-conformance: summary" in line][-1] :]
    assert re.search(r"^by impact: .*\d+ no answer.*, (\d+) not run$", "\n".join(summary), re.MULTILINE)
    not_run = [line for line in summary if line.startswith("not run: ")]
    assert len(not_run) == 1 and "given up" in not_run[0]
    count = int(re.match(r"not run: (\d+) test", not_run[0]).group(1))
    verdicts = [json.loads(line)["verdict"] for line in results.read_text().splitlines()]
    assert verdicts.count("not-run") == count > 100
    assert summary[-1].startswith("=") and "failed" in summary[-1]  # the summary is last, before pytest's count


def test_a_harness_without_sort_skips_the_sort_check_once(here):
    harness = here / "nosort.py"
    harness.write_text(
        "import sys\nfrom pytest_rmq_conformance.harness import Server\n"
        "class NoSort(Server):\n    def hello(self):\n        return {**super().hello(), 'sort': False}\n"
        "NoSort(['AVG']).serve(sys.stdin.buffer, sys.stdout.buffer)\n"
    )
    result = shell(f"pytest -p no:cacheprovider -rs '--rmq-strategy=exec:{sys.executable} nosort.py' --rmq-checks=sort", here)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert 'skipped: sort (its hello says "sort": false)' in result.stdout
    # one skip for the golden cases' sort, one for the generated lists': not one per case
    assert re.search(r"=+ 2 skipped", result.stdout), result.stdout[-2000:]
    assert result.stdout.count('not implemented: the harness\'s hello says "sort": false') == 2


@pytest.mark.once
def test_a_harness_that_sorts_unlike_java_costs_one_summary_line_per_cause(here):
    """A sort that puts client ids in code-point order: its failures are grouped by the list
    that differs, counted past 20, and each rerun line runs that one sort check."""
    harness = here / "pointsort.py"
    harness.write_text(
        "import json, sys\nfrom pytest_rmq_conformance.harness import Server\n"
        "class PointSort(Server):\n"
        "    def answer(self, line):\n"
        "        answer = super().answer(line)\n"
        "        if json.loads(line).get('cmd') == 'sort' and isinstance(answer.get('cidAll'), list):\n"
        "            answer['cidAll'] = sorted(answer['cidAll'])\n"
        "        return answer\n"
        "PointSort(['AVG', 'AVG_BY_CIRCLE', 'CONSISTENT_HASH']).serve(sys.stdin.buffer, sys.stdout.buffer)\n"
    )
    command = f"pytest -p no:cacheprovider '--rmq-strategy=exec:{sys.executable} pointsort.py' --rmq-reference-version=5.3.3"
    result = shell(f"{command} --rmq-checks=sort", here)
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr
    lines = result.stdout.splitlines()
    summary = lines[[i for i, line in enumerate(lines) if "rmq-conformance: summary" in line][-1] :]
    group = re.search(r"^ +(\d+) x the harness sorts unlike Java: cidAll$", "\n".join(summary), re.MULTILINE)
    assert group is not None, "\n".join(summary)
    # every golden case's sort check is in the group; the generated sort check may or may not
    # have drawn a list whose orders part (its seed decides), and is counted apart if it did
    failed = int(group.group(1))
    assert int(re.search(r"(\d+) failed", summary[-1]).group(1)) - failed in (0, 1)
    assert failed > 20 and len(lines) < 200, "\n".join(lines[-40:])
    assert f"by impact: {failed} wrong queues" in summary
    rerun = next(line.split("rerun: ", 1)[1] for line in lines if "rerun: " in line)
    assert "--rmq-checks=sort" in rerun and "--rmq-case=" in rerun
    again = shell(f"{rerun} -rA", here)
    ran = re.findall(r"^(PASSED|FAILED) test_sort\.py::(\S+)", again.stdout, re.MULTILINE)
    case = rerun.rpartition("--rmq-case=")[2]
    assert again.returncode == 1 and ("FAILED", f"test_sort[{case}]") in ran, again.stdout[-2000:]
    assert {name for _, name in ran} <= {f"test_sort[{case}]", "test_sort_generated"}, ran


@pytest.mark.once
def test_the_summary_counts_failed_checks_beyond_the_golden_vectors(here):
    result = shell("pytest -p no:cacheprovider --rmq-strategy=mystrat:LastQueueLost --rmq-checks=golden,invariants --rmq-seed=1 "
                   "--rmq-shrink-time=0.5", here)  # the counts, not the shrunk examples, are read here
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    summary = lines[[i for i, line in enumerate(lines) if "rmq-conformance: summary" in line][-1] :]
    beyond = [line for line in summary if "check(s) beyond the golden vectors failed: " in line]
    assert len(beyond) == 1 and "test_invariant_of_a_group[coverage]" in beyond[0], "\n".join(summary)
    golden = int(re.search(r"(\d+) failing case\(s\)", "\n".join(summary)).group(1))
    checks = int(beyond[0].split()[0])
    assert f"{golden + checks} failed" in summary[-1]  # every failure is accounted for
