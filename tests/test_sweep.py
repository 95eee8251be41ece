"""The sweep: its scenario space and evaluation (pure), and a small sweep on local Spark
checked against hand-computed numbers."""

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.pipeline.allocation.evaluate import Evaluator
from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace, fixed_example, layout_of
from pytest_rmq_conformance.pipeline.checks import parse_range

TESTS = Path(__file__).parent


@pytest.fixture(autouse=True)
def importable_breakers(monkeypatch):
    """``breakers:Gaps`` resolves in this process and in Spark's Python workers."""
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))


# -- the scenario space and one evaluation ---------------------------------------------


def test_scenario_i_is_the_same_whoever_draws_it():
    space = SweepSpace(queues=(1, 300), consumers=(1, 40), seed=5)
    assert [space.plan(i) for i in (3, 0, 7)] == [SweepSpace(queues=(1, 300), consumers=(1, 40), seed=5).plan(i) for i in (3, 0, 7)]
    assert space.plan(3) != SweepSpace(queues=(1, 300), consumers=(1, 40), seed=6).plan(3)
    plans = [space.plan(i) for i in range(300)]
    layouts = [layout_of(p) for p in plans]
    assert {p.events[0].kind for p in plans} == {"leave", "join", "crash"}
    assert {t for t, _, _ in layouts} == {1, 2, 3} and {b for _, b, _ in layouts} == {1, 2, 4} and {r for _, _, r in layouts} == {True, False}
    assert all(1 <= len(p.start.mq_all) <= 300 and 1 <= len(p.start.clients) <= 40 for p in plans)
    assert all(p.events[0].kind == "join" for p in plans if len(p.start.clients) == 1)


@pytest.mark.parametrize("text, error", [("5:2", "MIN <= MAX"), ("a:b", "MIN:MAX or a number"), ("0:3", "1 <= MIN")])
def test_ranges_are_checked(text, error):
    with pytest.raises(ValueError, match=error):
        parse_range(text, "--queues", 1, 1024)


def test_the_spec_example_by_hand():
    """24 queues, 4 clients, the second leaves: AVG moves 8 ownerships (the leaver's 6 plus 2
    that shift between survivors; a balanced group needs 6); consistent hashing moves exactly
    the leaver's."""
    plan = fixed_example(24, 4, 1)
    avg = Evaluator("AVG").evaluate(plan)
    assert (avg["moved"], avg["lower_bound"], avg["own"], avg["imbalance"]) == (8, 6, 6, 0)
    ch = Evaluator("CONSISTENT_HASH").evaluate(plan)
    assert ch["moved"] == ch["own"] and ch["violation_count"] == 0


def test_queues_java_cannot_sort_are_an_error_of_the_scenario_not_of_the_sweep():
    """Queue ids for which Java's TimSort throws "Comparison method violates its general contract!"
    (tests/data/timsort_vectors.jsonl, size58_58): each strategy's row says so; nothing raises."""
    from pytest_rmq_conformance import MessageQueue
    from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Plan, Scenario

    vector = json.loads((Path(__file__).parent / "data" / "timsort_vectors.jsonl").read_text().splitlines()[58])
    assert vector["name"] == "size58_58"
    queues = tuple(MessageQueue("T", "b", queue_id) for queue_id in vector["input"])
    plan = Plan(Scenario(None, {}, "g", queues, ("c1", "c2")), (Event("leave", "c2"),))
    for spec in ("AVG", "CONSISTENT_HASH"):
        row = Evaluator(spec).evaluate(plan, 7)
        assert row["violation_kinds"] == ["error"], row
        assert "Comparison method violates its general contract!" in row["violation_details"][0]
        assert json.loads(row["group"])["event"] == ["leave", "c2"]


def test_a_wrong_strategy_shows_its_violations():
    row = Evaluator("breakers:Gaps").evaluate(fixed_example(24, 4, 1))
    assert "gap" in row["violation_kinds"] and json.loads(row["group"])["event"] == ["leave", "10.0.0.2@1"]


FAULTY = """
import time

class Raises:
    name = "RAISES"
    def allocate(self, group, cid, mq_all, cid_all):
        if len(cid_all) > 3:
            raise RuntimeError("four is a crowd")
        return list(mq_all) if cid == min(cid_all) else []

class Hangs:
    name = "HANGS"
    def allocate(self, group, cid, mq_all, cid_all):
        while True:
            time.sleep(0.01)
"""


@pytest.fixture
def faulty(tmp_path, monkeypatch):
    (tmp_path / "faulty.py").write_text(FAULTY)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_strategy_that_raises_on_some_scenarios_or_does_not_load_is_recorded(faulty):
    three = fixed_example(4, 3, None)  # 3 clients, a fourth joins: raises after the change only
    raising = Evaluator("faulty:Raises").evaluate(three)
    assert raising["violation_kinds"].count("exception") == 4  # every client after the join (and a gap)
    assert Evaluator("faulty:Raises").evaluate(fixed_example(4, 3, 1))["violation_count"] == 0
    assert Evaluator("no_such_module:Nothing").evaluate(three)["violation_kinds"] == ["load"]


def test_a_hang_is_cut_off_and_recorded(faulty):
    row = Evaluator("faulty:Hangs", timeout=0.2).evaluate(fixed_example(4, 2, 1))
    assert row["violation_kinds"] == ["hang"]


def test_the_sweep_command_checks_its_arguments(capsys):
    assert main(["sweep", "--queues", "9:3", "--out", "x"]) == 2
    assert "--queues must be MIN:MAX" in capsys.readouterr().err
    assert main(["sweep", "--events", "leave,explode"]) == 2
    assert "events must be among" in capsys.readouterr().err
    assert main(["sweep", "--reference-version", "9.9.9"]) == 2
    assert main(["sweep", "--no-references"]) == 2
    assert "--no-references leaves nothing to sweep: name a strategy with --strategy SPEC" in capsys.readouterr().err


@pytest.fixture
def swept(monkeypatch):
    """``run_sweep`` replaced by a recorder of the strategies the command asks for (no Spark: the
    sweep extra is not needed)."""
    import importlib

    from pytest_rmq_conformance import cli

    # by its name in sys.modules, as the command imports it: an in-process pytester run of this worker
    # may have dropped the module from sys.modules and left its package's attribute pointing at the old one
    job = importlib.import_module("pytest_rmq_conformance.pipeline.allocation.job")

    monkeypatch.setattr(cli, "sweep_extra_problem", lambda: None)
    asked: list[list[str]] = []

    def record(specs, space, out, **options):
        asked.append(list(specs))
        return {"strategies": []}

    monkeypatch.setattr(job, "run_sweep", record)
    return asked


REFERENCES = ["AVG", "AVG_BY_CIRCLE", "CONFIG", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY"]


@pytest.mark.parametrize(
    "options, specs",
    [
        ([], REFERENCES),
        (["--strategy", "breakers:Gaps"], [*REFERENCES, "breakers:Gaps"]),
        (["--strategy", "AVG", "--strategy", "breakers:Gaps", "--strategy", "breakers:Gaps"], [*REFERENCES, "breakers:Gaps"]),
        (["--strategy", "breakers:Gaps", "--strategy", "AVG", "--no-references"], ["breakers:Gaps", "AVG"]),
    ],
    ids=["references", "added-beside-them", "each-once", "no-references"],
)
def test_strategy_adds_beside_the_references(swept, options, specs):
    assert main(["sweep", *options, "--quiet"]) == 0
    assert swept == [specs]


def test_a_strategy_that_does_not_load_stops_the_sweep_before_spark_starts(swept, capsys):
    assert main(["sweep", "--strategy", "no_such_module:Nothing"]) == 2
    assert "rmq-conformance sweep: error: --strategy no_such_module:Nothing: no module named 'no_such_module'" in capsys.readouterr().err
    assert swept == []


def test_a_strategy_in_the_current_directory_is_found(swept, tmp_path, monkeypatch):
    """As under ``python -m``: the sweep finds my_allocation.py where it is run, and so do the
    Python workers Spark starts (through PYTHONPATH)."""
    (tmp_path / "here_only.py").write_text("from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely as Mine\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert main(["sweep", "--strategy", "here_only:Mine", "--quiet"]) == 0
    assert swept == [[*REFERENCES, "here_only:Mine"]]
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str(tmp_path)


# -- on Spark ---------------------------------------------------------------------------

_no_spark = pytest.mark.skipif(
    importlib.util.find_spec("pyspark") is None, reason="the sweep runs on PySpark: the sweep extra, Python 3.11+"
)


def needs_spark(test):
    """A test of the sweep on Spark: the py311 env, which installs the sweep extra, runs it (``once``)."""
    return pytest.mark.once(_no_spark(test))


@pytest.fixture(scope="module")
def spark():
    from pytest_rmq_conformance.pipeline.spark import spark_session

    os.environ["PYTHONPATH"] = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    session = spark_session("local[2]")
    yield session
    session.stop()


def rows_of(out: Path):
    import pyarrow.parquet as pq

    table = pq.read_table(out / "results").drop(["seconds"])
    return sorted(table.to_pylist(), key=lambda r: (r["scenario"], r["strategy"]))


SPACE = SweepSpace(queues=(1, 48), consumers=(1, 9), seed=11, count=60)
SPECS = ["AVG", "CONSISTENT_HASH", "breakers:Gaps"]


@needs_spark
def test_a_small_sweep_matches_the_hand_computed_cases_and_catches_the_wrong_strategy(spark, tmp_path):
    from pytest_rmq_conformance.pipeline.allocation.job import run_sweep

    out = tmp_path / "sweep"
    summary = run_sweep(SPECS, SPACE, out, master="local[2]", partitions=3, spark=spark, progress=False, report=False)
    assert json.loads((out / "summary.json").read_text()) == summary
    (leave, join) = summary["examples"]
    avg, ch, gaps = leave["rows"]
    assert (avg["moved"], avg["lower_bound"], avg["own"]) == (8, 6, 6)
    assert ch["moved"] == ch["own"] and not ch["violations"]
    assert gaps["violations"] == ["gap"]
    by_spec = {entry["spec"]: entry for entry in summary["strategies"]}
    assert by_spec["AVG"]["failing_scenarios"] == 0 and by_spec["AVG"]["imbalance"]["max"] <= 1
    kinds = {v["kind"]: v for v in by_spec["breakers:Gaps"]["violations"]}
    assert "gap" in kinds and kinds["gap"]["examples"][0]["group"]
    # the aggregates agree with the per-scenario rows
    rows = [r for r in rows_of(out) if r["strategy"] == "AVG"]
    assert len(rows) == SPACE.count
    assert by_spec["AVG"]["churn"]["max"] == max(r["moved"] for r in rows)
    assert by_spec["AVG"]["churn"]["mean"] == round(sum(r["moved"] for r in rows) / len(rows), 4)
    # and each row agrees with evaluating its scenario directly
    direct = Evaluator("AVG").evaluate(SPACE.plan(rows[7]["scenario"]), rows[7]["scenario"])
    assert (direct["moved"], direct["lower_bound"]) == (rows[7]["moved"], rows[7]["lower_bound"])


@needs_spark
def test_results_do_not_depend_on_partitioning(spark, tmp_path):
    from pytest_rmq_conformance.pipeline.allocation.job import run_sweep

    one = run_sweep(SPECS[:2], SPACE, tmp_path / "one", partitions=1, spark=spark, progress=False, report=False)
    five = run_sweep(SPECS[:2], SPACE, tmp_path / "five", partitions=5, spark=spark, progress=False, report=False)
    for summary in (one, five):
        summary.pop("elapsed_seconds"), summary.pop("partitions")
        summary["cost"] = [{k: r[k] for k in ("spec", "size_bin", "scenarios")} for r in summary["cost"]["by_size"]]  # not the seconds
    assert one == five
    assert rows_of(tmp_path / "one") == rows_of(tmp_path / "five")


@needs_spark
def test_a_task_whose_worker_dies_is_retried_and_the_outputs_are_complete(spark, tmp_path, monkeypatch):
    from pytest_rmq_conformance.pipeline.allocation.job import run_sweep

    marker = tmp_path / "died-once"
    monkeypatch.setenv("RMQ_DRIVER_PID", str(os.getpid()))
    workers = spark.sparkContext.environment  # what Spark's Python workers see
    monkeypatch.setitem(workers, "RMQ_DIE_ONCE", str(marker))
    monkeypatch.setitem(workers, "RMQ_DRIVER_PID", str(os.getpid()))
    summary = run_sweep(["sweep_faults:DiesOnce"], SPACE, tmp_path / "out", partitions=2, spark=spark, progress=False, report=False)
    assert marker.exists(), "the worker should have died once"
    assert summary["strategies"][0]["scenarios"] == SPACE.count
    assert sorted(p.name for p in (tmp_path).iterdir()) == ["died-once", "out"]  # no staging left


@needs_spark
def test_the_command_sweeps_a_strategy_beside_the_references_and_says_what_it_counts(tmp_path, capsys):
    """A tiny sweep through the command line: ``--strategy`` adds to the six references; the
    table's columns and the violation lines count scenarios, calls and queues; the report and
    its plots are written."""
    pytest.importorskip("matplotlib")
    out = tmp_path / "report"
    code = main(["sweep", "--scenarios", "20", "--queues", "1:16", "--consumers", "1:5", "--master", "local[2]",
                 "--strategy", "breakers:Gaps", "--out", str(out), "--quiet"])  # fmt: skip
    assert code == 0
    names = {p.name for p in out.iterdir()}
    assert {"results", "summary.json", "report.md", "report.html", "churn_by_group_size.png", "imbalance_heatmap.png"} <= names
    summary = json.loads((out / "summary.json").read_text())
    assert [entry["spec"] for entry in summary["strategies"]] == [*REFERENCES, "breakers:Gaps"]
    gaps = summary["strategies"][-1]
    (gap,) = gaps["violations"]
    assert gap["kind"] == "gap" and gap["scenarios"] == gaps["failing_scenarios"] < gap["occurrences"]
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split("  ")[0].strip() == "strategy"
    assert [column.strip() for column in printed[0].split("  ") if column.strip()] == [
        "strategy", "scenarios", "failing scenarios", "calls", "queues moved: mean", "p99", "max", "lower bound: mean"
    ]  # fmt: skip
    assert [line.split()[0] for line in printed[1:8]] == [*REFERENCES[:5], "MACHINE_ROOM_NEARBY-AVG", "GAPS"]
    assert (
        f"GAPS (breakers:Gaps): gap in {gap['scenarios']} of 20 scenarios ({gap['occurrences']} occurrences)" in printed
    )
    report = (out / "report.md").read_text()
    assert "| AVG | 8 | 6 | 6 | none |" in report
    assert f"#### gap (in {gap['scenarios']} scenarios, {gap['occurrences']} occurrences)" in report


@needs_spark
def test_a_strategy_that_hangs_on_some_scenarios_is_recorded_and_the_sweep_completes(spark, tmp_path):
    from pytest_rmq_conformance.pipeline.allocation.job import run_sweep

    space = SweepSpace(queues=(1, 20), consumers=(1, 9), seed=3, count=16)
    # the limit is the test's own: 1 s is far beyond what a small group's honest call needs, even on a loaded machine
    summary = run_sweep(["sweep_faults:HangsOnBigGroups"], space, tmp_path / "out", partitions=2, timeout=1,
                        spark=spark, progress=False, report=False)
    (entry,) = summary["strategies"]
    big = [i for i in range(space.count) if max(len(members) for _, members in space.plan(i).groups()) > 5]
    assert 0 < len(big) < space.count
    kinds = {v["kind"]: v for v in entry["violations"]}
    assert kinds["hang"]["scenarios"] == kinds["hang"]["occurrences"] == entry["failing_scenarios"] == len(big)
    assert kinds["hang"]["examples"][0]["scenario"] == min(big)


@needs_spark
def test_a_registered_family_is_swept(spark, tmp_path, toy_registered):
    """tests/toy_family.py registers ROTATE on import: Spark's workers import it with the spec."""
    from pytest_rmq_conformance.pipeline.allocation.job import run_sweep

    space = SweepSpace(queues=(1, 30), consumers=(1, 6), seed=2, count=12)
    out = tmp_path / "toy"
    summary = run_sweep(["toy_family:Rotate", "toy_family:RotateIgnoringOffset"], space, out, master="local[2]",
                        partitions=2, spark=spark, progress=False, report=False)
    by_spec = {entry["spec"]: entry for entry in summary["strategies"]}
    assert by_spec["toy_family:Rotate"]["failing_scenarios"] == 0
    kinds = {v["kind"] for v in by_spec["toy_family:RotateIgnoringOffset"]["violations"]}
    assert kinds == {"differs-from-reference"}
    assert {row["name"] for row in rows_of(out)} == {"ROTATE"}


# -- strategies behind a harness ----------------------------------------------------------

PYTHON_HARNESS = f"exec:{sys.executable} -m pytest_rmq_conformance.harness"


def test_a_harness_serving_several_families_is_swept_once_per_family():
    from pytest_rmq_conformance.pipeline.allocation.evaluate import sweep_entries

    spec = f"{PYTHON_HARNESS} AVG CONSISTENT_HASH"
    assert sweep_entries([spec, "AVG"], "5.3.3", 2.0) == [(spec, "AVG"), (spec, "CONSISTENT_HASH"), ("AVG", None)]
    mixed = f"{PYTHON_HARNESS} AVG FAULT_STRATEGY SELECTOR_HASH"  # a client of both sides: only its allocation is swept
    assert sweep_entries([mixed], "4.9.8", 2.0) == [(mixed, "AVG")]
    plan = fixed_example(24, 4, 1)
    for family in ("AVG", "CONSISTENT_HASH"):
        remote = Evaluator(spec, family=family)
        try:
            row, local = remote.evaluate(plan), Evaluator(family).evaluate(plan)
        finally:
            remote.close()
        assert row["strategy"] == f"{spec} [{family}]" and row["name"] == f"AVG CONSISTENT_HASH {family}"
        assert (row["moved"], row["lower_bound"], row["own"], row["violation_count"]) == (
            local["moved"], local["lower_bound"], local["own"], 0
        )


def test_a_harness_that_dies_is_a_recorded_fault_and_the_next_scenario_runs(faulty, tmp_path, monkeypatch):
    (tmp_path / "dying.py").write_text(
        "import os\nfrom pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely\n\n"
        "class DiesOnFourClients(AllocateMessageQueueAveragely):\n"
        "    def allocate(self, group, cid, mq_all, cid_all):\n"
        "        if len(cid_all) == 4:\n            os._exit(7)\n"
        "        return super().allocate(group, cid, mq_all, cid_all)\n"
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    evaluator = Evaluator(f"{PYTHON_HARNESS} dying:DiesOnFourClients")
    try:
        died = evaluator.evaluate(fixed_example(24, 4, 1))
        fine = evaluator.evaluate(fixed_example(24, 3, 1))
    finally:
        evaluator.close()
    assert died["violation_kinds"] == ["harness-fault"]
    assert "exited with status 7" in died["violation_details"][0]
    assert fine["violation_count"] == 0 and fine["moved"] > 0


@needs_spark
def test_an_exec_spec_is_swept_on_spark_once_per_family(spark, tmp_path):
    from pytest_rmq_conformance.pipeline.allocation.job import run_sweep

    spec = f"{PYTHON_HARNESS} AVG AVG_BY_CIRCLE"
    space = SweepSpace(queues=(1, 30), consumers=(1, 6), seed=4, count=8)
    summary = run_sweep([spec], space, tmp_path / "out", partitions=2, spark=spark, progress=False, report=False)
    by_spec = {entry["spec"]: entry for entry in summary["strategies"]}
    assert set(by_spec) == {f"{spec} [AVG]", f"{spec} [AVG_BY_CIRCLE]"}
    assert all(entry["scenarios"] == 8 and entry["failing_scenarios"] == 0 for entry in by_spec.values())
