"""The sort check on generated lists: a harness that orders queue ids without Java's int overflow
sorts every golden case as Java did, and only the generated lists with ids far apart show it; a
harness that orders names by code point is rejected whatever the seed (a fixed list of names Java
orders unlike Python is asked in every run)."""

import sys

import pytest

from pytest_rmq_conformance.javalang import java_string_key
from pytest_rmq_conformance.model import java_sorted_queues

Q = ["-p", "no:cacheprovider", "-p", "no:xdist"]

#: the built-in harness, except that its sort compares queue ids as numbers (no overflow)
NATURAL_SORT = '''
import json
from pytest_rmq_conformance import harness
from pytest_rmq_conformance.javalang import java_sorted_strings, java_string_key


class NaturalSort(harness.Server):
    def answer(self, line):
        request = json.loads(line)
        if request.get("cmd") != "sort":
            return super().answer(line)
        mq_all, cid_all = request["mqAll"], request["cidAll"]
        key = lambda mq: (java_string_key(mq[0]), java_string_key(mq[1]), mq[2])
        return {
            "id": request["id"],
            "mqAll": None if mq_all is None else sorted(mq_all, key=key),
            "cidAll": None if cid_all is None else java_sorted_strings(cid_all),
        }


harness.Server = NaturalSort
harness.main(["AVG"])
'''


#: the built-in harness, except that it sorts client ids by Python's code points, not Java's UTF-16 units
CODE_POINT_SORT = '''
import json
from pytest_rmq_conformance import harness


class CodePointSort(harness.Server):
    def answer(self, line):
        request, answer = json.loads(line), super().answer(line)
        if request.get("cmd") == "sort" and request["cidAll"] is not None:
            answer["cidAll"] = sorted(request["cidAll"])
        return answer


harness.Server = CodePointSort
harness.main(["AVG"])
'''


def natural(queues):
    return sorted(queues, key=lambda mq: (java_string_key(mq.topic), java_string_key(mq.broker_name), mq.queue_id))


def test_the_golden_lists_cannot_tell_a_sort_without_overflow_from_javas(golden):
    for case in golden.cases:
        if case.mq_all is not None:
            assert natural(case.mq_all) == java_sorted_queues(case.mq_all), case.id


def test_the_generated_sort_check_rejects_a_sort_without_overflow(pytester):
    pytester.makepyfile(natural_sort=NATURAL_SORT)
    spec = f"--rmq-strategy=exec:{sys.executable} natural_sort.py"
    result = pytester.runpytest(*Q, spec, "--rmq-checks=sort", "--rmq-case=pub-AVG-000*", "--rmq-seed=1")
    assert result.ret == 1, result.stdout.str()
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1 and outcomes["passed"] >= 5, outcomes  # the golden cases' sorts pass
    result.stdout.fnmatch_lines(
        [
            "*the harness sorts a generated list unlike Java",
            "*mqAll: the orders part at position *",
            "*lists as data: *",
            "*shrinking: *",
            "*replay: pytest --pyargs pytest_rmq_conformance.suite.test_sort::test_sort_generated*",
            "FAILED *test_sort_generated*",
        ]
    )


def test_javas_own_sort_passes_the_generated_sort_check(pytester):
    spec = f"--rmq-strategy=exec:{sys.executable} -m pytest_rmq_conformance.harness"
    result = pytester.runpytest(*Q, spec, "--rmq-checks=sort", "--rmq-case=pub-AVG-000*")
    assert result.ret == 0, result.stdout.str()
    result.stdout.no_fnmatch_line("*test_sort_generated*SKIPPED*")


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_sort_by_code_point_is_rejected_whatever_the_seed(pytester, seed):
    pytester.makepyfile(code_point_sort=CODE_POINT_SORT)
    spec = f"--rmq-strategy=exec:{sys.executable} code_point_sort.py"
    result = pytester.runpytest(*Q, spec, "--rmq-checks=sort", "--rmq-case=pub-AVG-0001*", f"--rmq-seed={seed}")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(["*the harness sorts a generated list unlike Java", "*cidAll: the orders part at position *"])
