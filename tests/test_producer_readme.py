"""The README's producer examples do what it says: the selector of its own passes 4.9.8 and
fails 4.7.1 on the MIN_VALUE hashes; the failure it shows is what the suite prints."""


import pytest
from docs_pages import README, block_after, documentation

Q = ["-p", "no:cacheprovider", "--rmq-checks=golden"]




@pytest.mark.once
def test_the_readme_selector_passes_4_9_8_and_fails_the_min_value_hashes_of_4_7_1(pytester):
    pytester.makepyfile(myselector=block_after("A selector of your own, in `myselector.py`:", "python"))
    pytester.syspathinsert()
    assert pytester.runpytest(*Q, "--rmq-strategy=myselector:HashSelector", "--rmq-reference-version=4.9.8").ret == 0
    old = pytester.runpytest(*Q, "--rmq-strategy=myselector:HashSelector", "--rmq-reference-version=4.7.1")
    assert old.parseoutcomes()["failed"] == 25
    old.stdout.fnmatch_lines(["*by impact: 25 error behaviour only*"])


def test_the_readme_failure_is_what_the_suite_prints(pytester):
    """The README's table comes from the Node.js example's penalty-off-by-one variant; the
    Python breaker with the same fault prints the same lines."""
    block = block_after("and shows the\ntrace up to it", "console exit=1")
    shown = block[block.index("pub-FAULT_STRATEGY-0107") : block.index("  rerun:")].splitlines()
    result = pytester.runpytest(*Q, "--rmq-strategy=producer_breakers:PenaltyOffByOne", "--rmq-reference-version=5.3.3",
                                "--rmq-case=pub-FAULT_STRATEGY-0107-random-trace")
    printed = result.stdout.str()
    table = [line for line in shown[1:] if line != "..."]
    assert len(table) == 7
    for line in table:
        assert line.rstrip() in printed, line
    assert "rerun: pytest --rmq-strategy=producer_breakers:PenaltyOffByOne --rmq-reference-version=5.3.3" in printed


@pytest.mark.once
def test_the_readme_adapter_hands_a_clients_own_classes_to_the_suite(pytester):
    folder = README.parent / "examples" / "producer-adapter"
    adapter = (folder / "adapter.py").read_text()
    assert f"```python\n{adapter}```" in documentation()
    pytester.makepyfile(adapter=adapter, myclient=(folder / "myclient.py").read_text())
    pytester.syspathinsert()
    ok = pytester.runpytest(*Q, "--rmq-strategy=adapter:MyFaultStrategy")
    assert ok.ret == 0, ok.stdout.str()
    assert ok.parseoutcomes()["passed"] == 736
    older = pytester.runpytest(*Q, "--rmq-strategy=adapter:MyFaultStrategy", "--rmq-reference-version=4.9.8")
    assert older.ret == 1 and older.parseoutcomes()["failed"] == 587
