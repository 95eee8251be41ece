"""The group sweep: Java's mapping held to the port, the tally against a recount group by group,
a user's mapping that raises, hangs or answers off the route, the command's errors, and one run
on local Spark whose files and numbers agree."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

np = pytest.importorskip("numpy", reason="the group sweep counts with numpy: the sweep extra")

from pytest_rmq_conformance.cli import main  # noqa: E402
from pytest_rmq_conformance.pipeline.message_groups.job import tally  # noqa: E402
from pytest_rmq_conformance.pipeline.message_groups.mappers import JAVA, JavaModulo, UserMapping, load_problem  # noqa: E402
from pytest_rmq_conformance.pipeline.message_groups.space import GroupSpace  # noqa: E402
from pytest_rmq_conformance.ports.grpc.balancers import message_group_index  # noqa: E402

#: the example's jump consistent hashing, and mappings that misbehave on some groups
JUMP = Path(__file__).parents[1] / "examples" / "group-alternative" / "jump.py"
USER_MAPPINGS = '''
from jump import JumpGroupHash as Jump
from pytest_rmq_conformance.ports.grpc.route import Broker, Endpoints, MessageQueue


class Picky(Jump):
    """Refuses groups ending in 7; answers a queue that is not the route's for those ending in 3 (another
    queue id: an equal copy would be the route's queue, as Java's ``MessageQueueImpl.equals`` has it)."""

    def take_message_queue_by_message_group(self, group):
        if group.endswith("7"):
            raise KeyError(group)
        queue = super().take_message_queue_by_message_group(group)
        if group.endswith("3"):
            return MessageQueue(queue.topic, queue.broker, queue.queue_id + 1000, queue.permission)
        return queue


class Foreign(Jump):
    """Answers a queue of another topic for groups ending in 5."""

    def take_message_queue_by_message_group(self, group):
        if group.endswith("5"):
            return MessageQueue("Elsewhere", Broker("broker-z", 0, Endpoints("IPv4", (("10.9.9.9", 1),))), 0, "READ_WRITE")
        return super().take_message_queue_by_message_group(group)


class Hangs(Jump):
    def take_message_queue_by_message_group(self, group):
        if group == "order-12":
            while True:
                pass
        return super().take_message_queue_by_message_group(group)


class NoGroups:
    name = "NO_GROUPS"

    def __init__(self, route, index=0):
        pass

    def take_message_queue(self):
        return None
'''


@pytest.fixture
def user_mappings(tmp_path, monkeypatch):
    """``usermaps.py`` in the current directory, as a user's would be."""
    (tmp_path / "usermaps.py").write_text(USER_MAPPINGS, encoding="utf-8")
    (tmp_path / "jump.py").write_text(JUMP.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("usermaps", None)
    sys.modules.pop("jump", None)


@given(st.lists(st.text(max_size=40), min_size=1, max_size=30), st.integers(1, 65536))
def test_java_mapping_is_the_ports(groups, queues):
    """numpy's mod of the int64 hashes, every queue count at once, is the port's LongMath.mod."""
    found, error = JavaModulo().positions(groups, queues)
    assert error is None and found.dtype == np.int64
    assert found.tolist() == [message_group_index(group, queues) for group in groups]


def test_the_space_names_groups_and_checks_its_ranges():
    assert GroupSpace(groups=3, name_format="user-{i:04d}").group(12) == "user-0012"
    assert list(GroupSpace(groups=3, queues=(1, 3)).counts()) == [1, 2, 3, 4]
    for bad, message in [
        ({"name_format": "order"}, "--group-format must contain {i}"),
        ({"name_format": "{user}-{i}"}, "--group-format must name only {i}"),
        ({"groups": 0}, "--groups must be 1 or more, not 0"),
        ({"queues": (0, 3)}, "--queues must be MIN:MAX with 1 <= MIN <= MAX <= 65536, not 0:3"),
    ]:
        with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")):
            GroupSpace(**bad)


def _recount(space, where):
    """Per queue count: groups per queue and groups moved to one more queue, group by group."""
    counts, moved = {}, {}
    for k in space.counts():
        answers = [where(space.group(i), k) for i in range(space.groups)]
        counts[k] = [answers.count(q) for q in range(k)]
        if k + 1 in space.counts():
            moved[k] = sum(a != where(space.group(i), k + 1) for i, a in enumerate(answers))
    return counts, moved


def test_the_tally_is_a_recount_group_by_group(user_mappings):
    """Split in batches or not, Java's and a user's mapping tally what asking group by group counts."""
    space = GroupSpace(groups=300, queues=(3, 9))
    jump = UserMapping("usermaps:Jump")
    for batches in ([range(300)], [range(120), range(120, 121), range(121, 300)]):
        rows = {(r["strategy"], r["queues"]): r for r in tally(space, [JavaModulo(), jump], batches)}
        for label, where in ((JAVA, message_group_index), ("usermaps:Jump", None)):
            if where is None:
                from usermaps import Jump

                from pytest_rmq_conformance.kinds.grpc.play import group_route

                def where(group, k):
                    return Jump(group_route(k)).take_message_queue_by_message_group(group).queue_id

            counts, moved = _recount(space, where)
            for k in space.counts():
                row = rows[label, k]
                assert row["counts"] == counts[k] and row["groups"] == 300 and row["errors"] == 0
                assert (row["moved_up"], row["compared_up"]) == ((moved[k], 300) if k in moved else (0, 0))
    # jump hashing moves only the groups a new queue takes; Java's modulo moves most
    java, mine = rows[JAVA, 8], rows["usermaps:Jump", 8]
    assert mine["moved_up"] < 300 / 9 * 1.6 and java["moved_up"] > 300 * 0.8


def test_a_users_errors_are_counted_and_the_first_is_kept(user_mappings):
    space = GroupSpace(groups=40, queues=(2, 3))
    rows = tally(space, [UserMapping("usermaps:Picky"), UserMapping("usermaps:Foreign")], [range(40)])
    picky = {r["queues"]: r for r in rows if r["strategy"] == "usermaps:Picky"}
    assert all(r["errors"] == 8 and r["groups"] == 32 and sum(r["counts"]) == 32 for r in picky.values())
    assert picky[2]["error"].startswith("group 'order-3' over 2 queues: returned MessageQueue(TopicTest/broker-a#0/")
    assert picky[2]["error"].endswith(" READ_WRITE), not a queue of the route") and picky[2]["error_index"] == 3
    assert picky[2]["compared_up"] == 32  # no answer at 2 and at 3 alike: left out of the comparison
    foreign = {r["queues"]: r for r in rows if r["strategy"] == "usermaps:Foreign"}
    assert foreign[3]["errors"] == 4 and foreign[3]["error"].startswith(
        "group 'order-5' over 3 queues: returned MessageQueue(Elsewhere/broker-z#0/0 READ_WRITE), not a queue of the route")


def test_a_hang_stops_the_users_mapping_and_says_where(user_mappings):
    space = GroupSpace(groups=30, queues=(2, 2))
    mapping = UserMapping("usermaps:Hangs", timeout=1.5)  # far beyond what the honest groups before order-12 need
    rows = {r["queues"]: r for r in tally(space, [mapping], [range(30)])}
    assert rows[1]["groups"] == 12 and rows[1]["errors"] == 18
    assert rows[1]["error"] == "group 'order-12' over 1 queues did not return: " + rows[1]["error"].split("return: ")[1]
    assert "not asked since" in rows[1]["error"]
    assert rows[2]["errors"] == rows[3]["errors"] == 30 and rows[3]["error"] == rows[1]["error"]


@pytest.mark.once
def test_a_harness_serving_group_hash_is_asked_in_batches():
    """The built-in harness, serving the port: Java's own answers, through the group request."""
    space = GroupSpace(groups=50, queues=(4, 5))
    mapping = UserMapping(f"exec:{sys.executable} -m pytest_rmq_conformance.harness GROUP_HASH")
    try:
        rows = tally(space, [JavaModulo(), mapping], [range(50)])
    finally:
        mapping.close()
    java = [{**r, "strategy": None, "seconds": None} for r in rows if r["strategy"] == JAVA]
    served = [{**r, "strategy": None, "seconds": None} for r in rows if r["strategy"] != JAVA]
    assert java == served


@pytest.mark.parametrize(
    "options, error",
    [
        (["--groups", "0"], "--groups must be 1 or more, not 0"),
        (["--groups", "10", "--queues", "0:4"], "--queues must be MIN:MAX with 1 <= MIN <= MAX <= 65536, not '0:4'"),
        (["--groups", "10", "--group-format", "order"], "--group-format must contain {i}"),
        (["--groups", "10", "--seed", "3"], "--seed does not apply to the group sweep (--groups)"),
        (["--groups", "10", "--producer"], "--producer and --groups are two different sweeps: choose one"),
        (["--group-format", "x-{i}"], "--group-format does not apply to the allocation sweep (without --producer or --groups)"),
        (["--groups", "10", "--strategy", "usermaps:NoGroups"], "--strategy usermaps:NoGroups: the group sweep asks a "
         "balancer's take_message_queue_by_message_group(group); NoGroups has none"),
        (["--groups", "10", "--strategy", "usermaps:Nowhere"], "--strategy usermaps:Nowhere"),
    ],
)
def test_bad_group_options_are_one_line_errors(user_mappings, capsys, options, error):
    assert main(["sweep", *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rmq-conformance sweep: error: ") and error in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_a_harness_must_serve_group_hash():
    harness = f"exec:{sys.executable} -m pytest_rmq_conformance.harness AVG"
    assert load_problem(harness) == f"--strategy {harness}: the harness serves AVG, not GROUP_HASH (group requests)"


@pytest.mark.once
@pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="the sweep runs on PySpark: the sweep extra")
def test_the_command_sweeps_groups_on_local_spark_and_its_files_agree(user_mappings, capsys):
    import pyarrow.parquet as pq

    from pytest_rmq_conformance.pipeline.message_groups.plots import MOVED_PLOT, SKEW_PLOT

    out = user_mappings / "groups"
    argv = ["sweep", "--groups", "2000", "--queues", "2:12", "--master", "local[2]", "--partitions", "3", "--out", str(out),
            "--quiet", "--strategy", "usermaps:Jump", "--strategy", "usermaps:Picky"]
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(f"{JAVA}: the fullest queue holds a median ") and printed[1].startswith("usermaps:Jump: ")
    for name in ("summary.json", "report.md", "report.html", "spark.log", SKEW_PLOT, MOVED_PLOT):
        assert (out / name).is_file(), name
    for plot in (SKEW_PLOT, MOVED_PLOT):
        assert (out / plot).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert not any(path.name == "tallies" for path in out.iterdir())

    summary = json.loads((out / "summary.json").read_text())
    space = GroupSpace(groups=2000, queues=(2, 12))
    expected = {(r["strategy"], r["queues"]): r for r in tally(space, [JavaModulo(), UserMapping("usermaps:Jump"),
                                                                       UserMapping("usermaps:Picky")], [range(2000)])}
    per_queue = pq.read_table(out / "results").to_pylist()
    assert [s["label"] for s in summary["strategies"]] == [JAVA, "usermaps:Jump", "usermaps:Picky"]
    assert len(summary["rows"]) == 3 * 11
    for row in summary["rows"]:
        mine = expected[row["strategy"], row["queues"]]
        below = expected[row["strategy"], row["queues"] - 1]
        queues = sorted((r["queue"], r["groups"]) for r in per_queue if (r["strategy"], r["queues"]) == (row["strategy"], row["queues"]))
        assert queues == list(enumerate(mine["counts"]))
        assert (row["groups"], row["errors"], row["max"], row["min"]) == (mine["groups"], mine["errors"], max(mine["counts"]), min(mine["counts"]))
        assert row["skew"] == round(max(mine["counts"]) / (mine["groups"] / row["queues"]), 6)
        assert (row["moved_up"], row["moved_down"]) == (mine["moved_up"], below["moved_up"])
        assert row["moved_up_share"] == round(mine["moved_up"] / mine["compared_up"], 6)
        assert row["fewest_up_share"] == round(1 / (row["queues"] + 1), 6) and row["fewest_down_share"] == round(1 / row["queues"], 6)
        assert (row["first_error"] is None) == (row["strategy"] != "usermaps:Picky")
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "2,000 message groups named 'order-{i}' mapped to a topic of K = 2..12 queues" in report
    assert "usermaps:Picky: 4,400 group mappings had no answer; at K = 2: group 'order-3' over 2 queues: returned " in report
    for plot in (SKEW_PLOT, MOVED_PLOT):
        assert f"]({plot})" in report and f'src="{plot}"' in (out / "report.html").read_text(encoding="utf-8")
