"""``sweep --mix``: the mixes drawn, the double-taken and orphaned queues against the all-Java
group, Java mixed with itself safe and a strategy that breaks a shared group unsafe (consumer and
producer side), errors and harnesses, the command's errors, and one run of each side on local Spark."""

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

np = pytest.importorskip("numpy", reason="the mix sweep counts with numpy: the sweep extra")

from pytest_rmq_conformance.cli import main  # noqa: E402
from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace  # noqa: E402
from pytest_rmq_conformance.pipeline.message_groups.space import GroupSpace  # noqa: E402
from pytest_rmq_conformance.pipeline.mix.allocation import MixEvaluator, consumer_entries, mix_costs, mixes  # noqa: E402
from pytest_rmq_conformance.pipeline.mix.message_groups import JavaSelector, group_entries, mappers, mix_tally  # noqa: E402

PYTHON_HARNESS = f"exec:{sys.executable} -m pytest_rmq_conformance.harness"
REFERENCES = ["AVG", "AVG_BY_CIRCLE", "CONFIG", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY"]
SPACE = SweepSpace(queues=(1, 40), consumers=(1, 8), seed=5, count=40)


def _rows(spec, space=SPACE, family=None):
    evaluator = MixEvaluator(spec, family=family)
    try:
        return [row for i in range(space.count) for row in evaluator.rows(space.plan(i), i, space.seed)]
    finally:
        evaluator.close()


def _costs(row):
    return row["double_before"] + row["orphaned_before"] + row["double_after"] + row["orphaned_after"]


def test_the_mixes_are_drawn_from_the_seed_and_always_mix():
    for size in range(2, 30):
        pool = [f"c{i:02d}" for i in range(size)]
        found = mixes(pool, 3, size)
        assert found == mixes(list(reversed(pool)), 3, size)  # the pool's order does not matter
        sizes = [len(chosen) for _, chosen in found]
        assert sizes == sorted(set(sizes)) and all(
            1 <= n < size for n in sizes
        )  # someone runs each side, no size twice
        assert sizes == sorted({1, size // 2, size - 1} - {0})
        assert all(set(chosen) <= set(pool) for _, chosen in found)
    assert mixes([f"c{i}" for i in range(9)], 3, 1) != mixes([f"c{i}" for i in range(9)], 4, 1)


def test_costs_count_against_the_all_java_group():
    java = {"a": ["q0", "q1"], "b": ["q0", "q2"]}  # Java's own overlap (q0) and gap (q3) are not the strategy's
    assert mix_costs(["q0", "q1", "q2", "q3"], java, java, ["a"]) == (0, 0)
    assert mix_costs(["q0", "q1", "q2", "q3"], java, {"a": ["q2"]}, ["a"]) == (1, 1)  # q2 twice, q1 nobody's
    assert mix_costs(["q0", "q1", "q2", "q3"], java, {"a": ["q0", "q1", "q1"]}, ["a"]) == (0, 0)  # a queue named twice
    assert mix_costs(["q0", "q1", "q2", "q3"], java, {"a": ["q3"]}, ["a"]) == (0, 1)  # taking Java's gap is no double
    assert mix_costs(
        ["q0", "q1", "q2", "q3"], java, {"a": ["q0", "q1", "elsewhere"], "b": ["elsewhere"]}, ["a", "b"]
    ) == (0, 1)


def test_a_master_nobody_answers_at_is_exit_3_before_anything_runs(tmp_path, capsys):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for mode in (["--mix", "--strategy", "AVG"], ["--mix", "--groups", "10", "--strategy", "GROUP_HASH"]):
        assert main(["sweep", *mode, "--master", f"spark://127.0.0.1:{port}", "--out", str(tmp_path / "out")]) == 3
        err = capsys.readouterr().err
        assert err.startswith(f"rmq-conformance sweep: error: no Spark master answers at spark://127.0.0.1:{port} ")
        assert err.count("\n") == 1 and not (tmp_path / "out").exists()


@pytest.mark.parametrize("spec", REFERENCES)
def test_java_mixed_with_itself_is_safe(spec):
    rows = _rows(spec)
    assert len(rows) >= SPACE.count and {row["mix"] for row in rows} == {"one", "half", "all-but-one"}
    assert [row for row in rows if _costs(row) or row["error"]] == []
    if spec == "CONFIG":  # every client gets the configured list: Java's own overlap, not counted
        assert all(row["java_double"] for row in rows)


def test_a_users_class_computing_as_java_is_safe_and_one_sorting_otherwise_is_not():
    safe = _rows("mix_breakers:Averagely")
    assert safe and not any(_costs(row) or row["error"] for row in safe)
    wrong = _rows("mix_breakers:ReverseSorted")
    broken = [row for row in wrong if _costs(row)]
    assert len(broken) > len(wrong) / 2
    assert sum(row["double_before"] + row["double_after"] for row in wrong) > 0
    assert sum(row["orphaned_before"] + row["orphaned_after"] for row in wrong) > 0
    assert all(row["group"] for row in broken) and all(row["error"] is None for row in wrong)


def test_a_member_that_raises_is_an_error_of_the_mixes_it_runs_in():
    space = SweepSpace(queues=(6, 6), consumers=(4, 4), events=("leave",), seed=0, count=4)
    rows = _rows("mix_breakers:RefusesOne", space)
    with_it = [row for row in rows if any(cid.endswith("@1001") for cid in row["x_clients"])]
    assert with_it and all(row["failed_calls"] and "no share for you" in row["error"] for row in with_it)
    assert all(row["error"] is None and row["failed_calls"] == 0 for row in rows if row not in with_it)
    assert len(with_it) < len(rows)


def test_a_harness_is_mixed_per_consumer_family_and_served_java_is_safe():
    spec = f"{PYTHON_HARNESS} AVG CONSISTENT_HASH GROUP_HASH"
    entries, problems = consumer_entries([spec, "AVG"], "5.3.3", 2.0)
    assert (entries, problems) == ([(spec, "AVG"), (spec, "CONSISTENT_HASH"), ("AVG", None)], [])
    space = SweepSpace(queues=(1, 30), consumers=(1, 6), seed=2, count=6)
    for family in ("AVG", "CONSISTENT_HASH"):
        rows = _rows(spec, space, family)
        assert rows and all(
            row["strategy"] == f"{spec} [{family}]" and not _costs(row) and row["error"] is None for row in rows
        )


def test_a_harness_that_dies_is_an_error_and_the_next_scenario_runs(tmp_path, monkeypatch):
    (tmp_path / "dying.py").write_text(
        "import os\nfrom pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely\n\n"
        "class DiesOnFourClients(AllocateMessageQueueAveragely):\n"
        "    def allocate(self, group, cid, mq_all, cid_all):\n"
        "        if len(cid_all) == 4:\n            os._exit(7)\n"
        "        return super().allocate(group, cid, mq_all, cid_all)\n"
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    space = SweepSpace(queues=(8, 8), consumers=(2, 4), events=("leave",), seed=4, count=8)
    rows = _rows(f"{PYTHON_HARNESS} dying:DiesOnFourClients", space)
    died = {row["scenario"] for row in rows if row["error"]}
    assert died == {row["scenario"] for row in rows if row["consumers"] == 4} and 0 < len(died) < space.count
    assert all(
        row["error"].startswith("harness-fault: ") and "exited with status 7" in row["error"]
        for row in rows
        if row["error"]
    )
    assert any(
        row["scenario"] > min(died) and row["error"] is None for row in rows
    )  # the harness restarts for the next one


@given(st.lists(st.text(max_size=30), min_size=1, max_size=20), st.integers(1, 5000))
def test_java_selector_is_the_port(names, queues):
    from pytest_rmq_conformance.model import MessageQueue
    from pytest_rmq_conformance.ports.producer.selectors import SelectMessageQueueByHash

    found, error = JavaSelector().positions(names, queues)
    mqs = [MessageQueue("TopicTest", "broker-a", q) for q in range(queues)]
    assert error is None and found.tolist() == [SelectMessageQueueByHash().select(mqs, None, n).queue_id for n in names]


def _split(specs, space):
    entries, problems = group_entries(specs)
    assert problems == []
    chosen = mappers(entries, space, 2.0)
    try:
        rows = mix_tally(space, chosen, [range(space.groups // 3), range(space.groups // 3, space.groups)])
    finally:
        for entry in chosen:
            entry[4].close()
    totals = {}
    for row in rows:
        names, split, errors = totals.get(row["strategy"], (0, 0, 0))
        totals[row["strategy"]] = (names + row["names"], split + row["split"], errors + row["errors"])
    return totals, rows


def test_java_producers_never_split_and_another_hash_splits_most_names():
    space = GroupSpace(groups=120, queues=(1, 9))
    totals, rows = _split(
        ["SELECTOR_HASH", "GROUP_HASH", "mix_breakers:SameSelector", "mix_breakers:Crc32Selector"], space
    )
    assert totals["SELECTOR_HASH [SELECTOR_HASH]"] == totals["GROUP_HASH [GROUP_HASH]"] == (120 * 9, 0, 0)
    assert totals["mix_breakers:SameSelector [SELECTOR_HASH]"] == (120 * 9, 0, 0)
    names, split, errors = totals["mix_breakers:Crc32Selector [SELECTOR_HASH]"]
    assert errors == 0 and split > names / 2
    at_one = next(r for r in rows if r["strategy"] == "mix_breakers:Crc32Selector [SELECTOR_HASH]" and r["queues"] == 1)
    assert at_one["split"] == 0  # one queue: nothing to split
    at_nine = next(
        r for r in rows if r["strategy"] == "mix_breakers:Crc32Selector [SELECTOR_HASH]" and r["queues"] == 9
    )
    assert at_nine["first_split"].startswith("'order-") and at_nine["split_index"] is not None


@pytest.mark.once
def test_a_harness_serving_both_producer_families_is_mixed_per_family():
    spec = f"{PYTHON_HARNESS} GROUP_HASH SELECTOR_HASH AVG"
    totals, _ = _split([spec], GroupSpace(groups=60, queues=(2, 5)))
    assert totals == {f"{spec} [GROUP_HASH]": (240, 0, 0), f"{spec} [SELECTOR_HASH]": (240, 0, 0)}


@pytest.mark.parametrize(
    "options, error",
    [
        (["--mix"], "--mix needs a strategy to mix with Java's: --strategy SPEC (repeatable)"),
        (["--mix", "--groups", "10"], "--mix needs a strategy to mix with Java's: --strategy SPEC (repeatable)"),
        (
            ["--mix", "--producer", "--strategy", "AVG"],
            "--mix --producer: the producer side of --mix is --mix --groups N",
        ),
        (
            ["--mix", "--strategy", "AVG", "--brokers", "2:3"],
            "--brokers does not apply to the consumer side of the mix sweep (--mix)",
        ),
        (
            ["--mix", "--groups", "5", "--strategy", "GROUP_HASH", "--seed", "1"],
            "--seed does not apply to the producer side of the mix sweep (--mix --groups)",
        ),
        (["--mix", "--strategy", "nowhere:Nothing"], "--strategy nowhere:Nothing: "),
        (
            ["--mix", "--strategy", "GROUP_HASH"],
            "--strategy GROUP_HASH: 'GROUP_HASH' has no Java allocation family to mix with",
        ),
        (
            ["--mix", "--groups", "5", "--strategy", "AVG"],
            "--strategy AVG: the producer side mixes a balancer's "
            "take_message_queue_by_message_group(group) or a selector's select(mqs, msg, arg); AllocateMessageQueueAveragely has neither",
        ),
        (
            ["--mix", "--strategy", f"{PYTHON_HARNESS} GROUP_HASH"],
            "the harness serves GROUP_HASH, no consumer allocation family to mix",
        ),
        (
            ["--mix", "--groups", "5", "--strategy", f"{PYTHON_HARNESS} AVG"],
            "the harness serves AVG, neither GROUP_HASH nor SELECTOR_HASH",
        ),
        (["--mix", "--strategy", "exec:false"], "--strategy exec:false: "),
        (["--mix", "--strategy", "AVG", "--out", "a-file/out"], "a-file is a file, not a directory"),
        (["--mix", "--strategy", "AVG", "--out", "/proc/no-such/out"], "--out /proc/no-such/out: cannot write there ("),
        (
            ["--mix", "--strategy", "AVG", "--queues", "0:3"],
            "--queues must be MIN:MAX with 1 <= MIN <= MAX <= 100000, not '0:3'",
        ),
    ],
)
def test_bad_mix_options_are_one_line_errors(tmp_path, monkeypatch, capsys, options, error):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("")
    assert main(["sweep", *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rmq-conformance sweep: error: ") and error in err and err.count("\n") == 1, err
    assert "Traceback" not in err and [p.name for p in tmp_path.iterdir()] == ["a-file"]


@pytest.fixture
def breakers_here(tmp_path, monkeypatch):
    """``mix_breakers.py`` in the current directory, as a user's module would be (Spark's workers import it there)."""
    (tmp_path / "mix_breakers.py").write_text(
        (Path(__file__).parent / "mix_breakers.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))  # the sweep adds the current directory to it
    return tmp_path


needs_spark = pytest.mark.skipif(
    importlib.util.find_spec("pyspark") is None, reason="the sweep runs on PySpark: the sweep extra"
)


@pytest.mark.once
@needs_spark
def test_the_consumer_side_on_local_spark_says_which_strategy_is_safe(breakers_here, tmp_path, capsys):
    import pyarrow.parquet as pq

    from pytest_rmq_conformance.pipeline.mix.plots import CONSUMER_PLOT

    out = tmp_path / "mix"
    argv = [
        "sweep",
        "--mix",
        "--strategy",
        "AVG",
        "--strategy",
        "mix_breakers:ReverseSorted",
        "--scenarios",
        "24",
        "--queues",
        "1:40",
        "--consumers",
        "1:8",
        "--seed",
        "5",
        "--master",
        "local[2]",
        "--partitions",
        "3",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "AVG: safe to mix with Java (consumer side, n = " + printed[0].split("n = ")[1]
    assert printed[1].startswith("mix_breakers:ReverseSorted: NOT safe to mix with Java (consumer side): ")
    assert printed[2].startswith("  worst: scenario ") and printed[3].startswith(
        "  replay: rmq-conformance sweep --mix "
    )
    for name in ("summary.json", "report.md", "report.html", CONSUMER_PLOT):
        assert (out / name).is_file(), name
    assert (out / CONSUMER_PLOT).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    summary = json.loads((out / "summary.json").read_text())
    space = SweepSpace(queues=(1, 40), consumers=(1, 8), seed=5, count=24)
    expected = {spec: _rows(spec, space) for spec in ("AVG", "mix_breakers:ReverseSorted")}
    stored = pq.read_table(out / "results").to_pylist()
    assert len(stored) == sum(map(len, expected.values()))
    safe, wrong = summary["verdicts"]
    assert safe["safe"] and safe["failing"] == 0 and safe["n"] == len(expected["AVG"])
    bad = [row for row in expected["mix_breakers:ReverseSorted"] if _costs(row)]
    assert (
        not wrong["safe"]
        and wrong["failing"] == len(bad)
        and wrong["failing_scenarios"] == len({r["scenario"] for r in bad})
    )
    assert wrong["double"] == sum(r["double_before"] + r["double_after"] for r in bad)
    worst = max(bad, key=lambda r: (_costs(r), -r["scenario"]))
    assert wrong["worst"].startswith(f"scenario {worst['scenario']} of seed 5 ")
    assert wrong["replay"].endswith(f"--scenarios {worst['scenario'] + 1}")
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| AVG | AVG | consumer | yes | nothing | 0 of n = " in report
    assert "| mix_breakers:ReverseSorted | AVG | consumer | no | " in report and f"]({CONSUMER_PLOT})" in report


@pytest.mark.once
@needs_spark
def test_the_producer_side_on_local_spark_says_which_strategy_is_safe(breakers_here, tmp_path, capsys):
    from pytest_rmq_conformance.pipeline.mix.plots import SPLIT_PLOT

    out = tmp_path / "mix"
    argv = [
        "sweep",
        "--mix",
        "--groups",
        "300",
        "--queues",
        "1:6",
        "--group-format",
        "key-{i}",
        "--strategy",
        "SELECTOR_HASH",
        "--strategy",
        "mix_breakers:Crc32Selector",
        "--master",
        "local[2]",
        "--partitions",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "SELECTOR_HASH [SELECTOR_HASH]: safe to mix with Java (producer side, n = 1,800)"
    assert printed[1].startswith(
        "mix_breakers:Crc32Selector [SELECTOR_HASH]: NOT safe to mix with Java (producer side): "
    )
    summary = json.loads((out / "summary.json").read_text())
    totals, _ = _split(["mix_breakers:Crc32Selector"], GroupSpace(groups=300, queues=(1, 6), name_format="key-{i}"))
    wrong = summary["verdicts"][1]
    assert (wrong["n"], wrong["split"], wrong["errors"]) == totals["mix_breakers:Crc32Selector [SELECTOR_HASH]"][:1] + (
        totals["mix_breakers:Crc32Selector [SELECTOR_HASH]"][1],
        0,
    )
    assert wrong["replay"].startswith("rmq-conformance sweep --mix --groups 300 --queues ")
    assert (out / SPLIT_PLOT).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "'key-" in (out / "report.md").read_text(encoding="utf-8")
