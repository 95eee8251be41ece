"""The producer sweep: the simulation on small scenarios checked by hand, the isolation tables,
the command's errors, and one run on local Spark whose files and numbers agree."""

import importlib.util
import json
from fractions import Fraction

import pytest

from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.pipeline.producer.isolation import effective_table, isolation_tables
from pytest_rmq_conformance.pipeline.producer.sim import ROUTE_POLL, Scenario, reference_factory, simulate
from pytest_rmq_conformance.pipeline.producer.space import CONFIGURATIONS, ProducerSpace
from pytest_rmq_conformance.pipeline.producer.strategies import configurations, load_problem

#: a user's fault strategies: the 5.3.3 port under another name, and one that breaks with the fault table on
USER_STRATEGIES = """
from pytest_rmq_conformance.ports.producer import MQFaultStrategy


class Mine(MQFaultStrategy):
    def __init__(self, clock):
        super().__init__(clock=clock, version="5.3.3")


class Flaky(Mine):
    def __init__(self, clock):
        super().__init__(clock)
        self.selects = 0

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        self.selects += 1
        if self.send_latency_fault_enable and self.selects > 150:
            raise RuntimeError("flaky gave up")
        return super().select_one_message_queue(info, last_broker_name, reset_index)
"""


@pytest.fixture
def user_strategies(tmp_path, monkeypatch):
    """``userfault.py`` in the current directory, as a user's would be."""
    (tmp_path / "userfault.py").write_text(USER_STRATEGIES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path

RELEASES = ("4.7.1", "4.9.8", "5.3.3")


def failing(brokers=3, queues=1, duration=30_000, seed=7, pattern="failing", **more):
    """``broker-b`` fails from 5 s for ``duration`` ms; a send is due every 100 ms."""
    return Scenario(0, pattern, brokers=brokers, queues=queues, degraded=1, onset=5_000, duration=duration, seed=seed, **more)


def run(release, scenario, on, **options):
    return simulate(reference_factory(release), scenario, on, **options)


# -- the simulation, by hand ------------------------------------------------------------


@pytest.mark.parametrize("brokers, queues", [(3, 1), (3, 4), (4, 2)])
def test_off_a_failing_broker_takes_the_turns_round_robin_leaves_it(brokers, queues):
    """4.9.8, off: a first attempt on the failing broker's first queue retries on the next
    positions, one counter step each, past its other queues into the next broker's first; the
    next send starts after that. One lap of the list is then (brokers - 1) * queues sends, one
    of them on the failing broker: 1/2 of the first attempts with 3 brokers of 1 queue (not 1/3),
    1/8 with 3 of 4. Each such send makes 2 attempts and none fails."""
    measured = run("4.9.8", failing(brokers, queues), False)
    share = Fraction(measured.first_to_degraded, measured.sends)
    assert abs(share - Fraction(1, (brokers - 1) * queues)) <= Fraction(1, measured.sends // ((brokers - 1) * queues))
    assert measured.attempts == measured.sends + measured.first_to_degraded and measured.failed == 0


def test_off_every_release_keeps_sending_to_a_failing_broker_and_comes_back_at_once():
    for release in RELEASES:
        measured = run(release, failing(), False)
        assert measured.first_to_degraded > measured.sends // 4, release
        assert measured.returned_after is not None and measured.returned_after <= 3 * 100, release


def test_on_4_x_isolates_a_failing_broker_for_600_s_after_its_first_failure():
    """4.x prices a failed send at 30,000 ms: 600,000 ms out. The failure window (30 s) is
    shorter, so the broker takes exactly one first attempt, the first send that reaches it; it
    gets sends again 600 s after that failure, about 570 s after it recovered."""
    scenario = failing()
    for release in ("4.7.1", "4.9.8"):
        measured = run(release, scenario, True, trace=True)
        first_failure = next(start for start, tried, _ in measured.trace if tried[0] == "broker-b" and start >= scenario.onset)
        assert measured.first_to_degraded == 1 and measured.attempts == measured.sends + 1
        back_at = scenario.recovery + measured.returned_after
        assert first_failure + 600_000 <= back_at <= first_failure + 600_000 + 3 * 100, release


def test_on_5_3_3_isolates_for_10_s_and_so_recovers_sooner():
    """5.3.3 prices a failed send at 10,000 ms: 10,000 ms out. Over 30 s of failure it tries the
    broker once per isolation, 3 times, and gets back to it within one isolation of recovery."""
    scenario = failing()
    new, old = run("5.3.3", scenario, True), run("4.9.8", scenario, True)
    assert new.first_to_degraded == 3
    assert new.returned_after <= 10_000 and old.returned_after > 500_000
    assert new.failed == old.failed == 0


def test_a_slow_broker_is_avoided_on_and_slows_every_lap_off():
    """600 ms answers: 4.x keeps the broker out 30 s after each, 5.3.3 2 s; off, one send a lap waits."""
    slow = Scenario(0, "slow", brokers=3, queues=2, degraded=1, onset=5_000, duration=60_000, latencies=(5, 5, 5), seed=3)
    off, on_4, on_5 = run("4.9.8", slow, False), run("4.9.8", slow, True), run("5.3.3", slow, True)
    assert Fraction(off.first_to_degraded, off.sends) == pytest.approx(1 / 3, abs=0.02)
    assert off.latency / off.sends > 150 and on_4.latency / on_4.sends < 30
    assert on_4.first_to_degraded == 2  # at the fault's start, and 30 s later
    assert on_4.first_to_degraded < on_5.first_to_degraded <= 60_000 // 2_000 + 1


def test_a_route_refresh_drops_the_broker_until_the_first_poll_after_recovery():
    scenario = Scenario(0, "route-refresh", brokers=3, queues=2, degraded=0, onset=5_000, duration=40_000, drop_at=20_000, seed=3)
    back = -(-scenario.recovery // ROUTE_POLL) * ROUTE_POLL
    assert scenario.route_changes() == [(20_000, (1, 2)), (back, (0, 1, 2))]
    for release in RELEASES:
        measured = run(release, scenario, False, trace=True)
        assert not [t for t in measured.trace if "broker-a" in t[1] and 20_000 <= t[0] < back], release
        assert back - scenario.recovery <= measured.returned_after <= back - scenario.recovery + 6 * 100, release


def test_4_7_1_rewrites_the_publish_list_and_loses_the_recovered_broker():
    """2 brokers of 1 queue, latency fault tolerance on: after broker-b fails, 4.7.1's retry looks
    for an available queue of the *same* broker, finds none, falls back on broker-a and rewrites
    the next list entry, broker-b's only one, to broker-a (spec §4.1): broker-b gets no sends again.
    4.9.8 and 5.3.3 never rewrite the list."""
    for seed in range(5):
        scenario = failing(brokers=2, seed=seed)
        lost = run("4.7.1", scenario, True)
        assert lost.lost_from_list and lost.returned_after is None
        for release in ("4.9.8", "5.3.3"):
            kept = run(release, scenario, True)
            assert not kept.lost_from_list and kept.returned_after is not None


def test_the_control_gets_round_robins_share_under_every_configuration():
    healthy = Scenario(0, "healthy", brokers=4, queues=3, degraded=2, onset=5_000, duration=30_000, seed=1)
    for release, on in CONFIGURATIONS:
        measured = run(release, healthy, on)
        assert Fraction(measured.first_to_degraded, measured.sends) == pytest.approx(1 / 4, abs=0.01), (release, on)
        assert measured.attempts == measured.sends and measured.latency == 5 * measured.sends


def test_a_flapping_broker_gets_between_its_working_and_its_failing_share():
    """3 brokers of 1 queue, off: 1/3 of first attempts while it works, 1/2 while it fails (see
    above); on, 4.9.8 isolates it for 600 s at its first failure."""
    flapping = failing(pattern="flapping", flap_period=5_000)
    off = run("4.9.8", flapping, False)
    assert Fraction(1, 3) < Fraction(off.first_to_degraded, off.sends) < Fraction(1, 2) and off.failed == 0
    assert run("4.9.8", flapping, True).first_to_degraded == 1


def test_runs_are_deterministic_and_scenarios_take_turns():
    space = ProducerSpace(count=20, seed=4)
    assert [space.scenario(i) for i in range(10)] == [ProducerSpace(count=20, seed=4).scenario(i) for i in range(10)]
    assert [space.scenario(i).pattern for i in range(5)] == list(space.patterns)
    assert space.scenario(3) != ProducerSpace(count=20, seed=5).scenario(3)
    scenario = space.scenario(7)
    assert run("5.3.3", scenario, True, trace=True) == run("5.3.3", scenario, True, trace=True)


def test_a_strategy_that_raises_is_recorded_and_the_run_stops():
    class Breaks:
        def __init__(self, clock):
            self.inner = reference_factory("4.9.8")(clock=clock)
            self.send_latency_fault_enable = False

        def publish_info(self, topic, route):
            return self.inner.publish_info(topic, route)

        def select_one_message_queue(self, info, last, reset_index=False):
            if last is not None:
                raise RuntimeError("no retries here")
            return self.inner.select_one_message_queue(info, last)

        def update_fault_item(self, broker, latency, isolation, reachable=True):
            pass

    measured = simulate(Breaks, failing(), False)
    assert "RuntimeError: no retries here" in measured.error and measured.total_sends < 100


def test_a_users_strategy_is_played_beside_the_releases_and_its_errors_are_recorded(user_strategies):
    """``Mine`` is the 5.3.3 port under another name, played through 5.3.3's loop: its rows are
    5.3.3's. ``Flaky`` raises on its 151st select with the fault table on: each such run stops
    there with the error (a send is due every 100 ms and none is late here); off, it is ``Mine``."""
    from pytest_rmq_conformance.pipeline.producer.job import scenario_rows

    assert load_problem("userfault:Mine") is None and load_problem("userfault:Flaky") is None
    configs = configurations(["userfault:Mine", "userfault:Flaky"])
    assert [c.label for c in configs[::2]] == [*RELEASES, "userfault:Mine", "userfault:Flaky"]
    space = ProducerSpace(count=3, brokers=(2, 3), queues=(1, 2))
    rows = scenario_rows(space, 2, configs)
    played = {(r["strategy"], r["release"], r["latency_fault"]): r for r in rows}
    numbers = ("sends", "first_to_degraded", "failed", "attempts", "latency_ms", "returned_after_ms", "total_sends")
    for on in (False, True):
        reference = [played[("reference", "5.3.3", on)][n] for n in numbers]
        assert [played[("userfault:Mine", "5.3.3", on)][n] for n in numbers] == reference
        assert not played[("userfault:Mine", "5.3.3", on)]["error"]
    assert [played[("userfault:Flaky", "5.3.3", False)][n] for n in numbers] == [
        played[("reference", "5.3.3", False)][n] for n in numbers
    ]
    broken = played[("userfault:Flaky", "5.3.3", True)]
    # the send that made the 151st select raised: the run stops with the sends before it (retries select too)
    assert broken["error"] == f"at {100 * broken['total_sends']} ms: RuntimeError: flaky gave up"
    assert broken["total_sends"] < 150 and broken["first_to_degraded"] > 0


# -- the isolation tables ---------------------------------------------------------------


def test_the_isolation_tables_are_the_ports_and_the_documentation_is_beside_them():
    at = {release: {row["latency_ms"]: row["isolation_ms"] for row in effective_table(release)} for release in RELEASES}
    assert at["4.7.1"][550] == at["4.9.8"][550] == 30_000 and at["5.3.3"][550] == 2_000
    assert at["4.9.8"][100] == at["5.3.3"][100] == 0 and at["4.9.8"][15_000] == 600_000
    tables = isolation_tables()
    failed = {e["release"]: e["failed_send"] for e in tables["releases"]}
    assert failed["4.9.8"] == {"priced_at_ms": 30_000, "isolation_ms": 600_000}
    assert failed["5.3.3"] == {"priced_at_ms": 10_000, "isolation_ms": 10_000}
    assert {"latency_ms": 550, "isolation_ms": 3_000} in tables["documentation"]["steps"]


# -- the command --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, error",
    [
        (["--scenarios", "-1"], "--scenarios must be 1 or more, not -1"),
        (["--partitions", "0"], "--partitions must be 1 or more, not 0"),
        (["--brokers", "1:3"], "--brokers must be MIN:MAX with 2 <= MIN <= MAX <= 1000, not '1:3'"),
        (["--queues", "4:2"], "--queues must be MIN:MAX with 1 <= MIN <= MAX <= 1024, not '4:2'"),
        (["--patterns", "slow,laggy"], "--patterns: 'laggy' is not among healthy, slow, failing, flapping, route-refresh"),
        (["--patterns", "laggy,slow,melting"], "--patterns: 'laggy', 'melting' are not among healthy, slow, failing,"),
        (["--patterns", ","], "--patterns names no pattern (among healthy, slow, failing, flapping, route-refresh): ','"),
        (["--strategy", "AVG"], "--strategy AVG: the producer sweep plays fault strategies (FAULT_STRATEGY, built as "
         "factory(clock=...)); this strategy is of the AVG family"),
        (["--strategy", "exec:python3 harness.py"], "--strategy exec:python3 harness.py: an exec: harness answers whole "
         "traces, never one send at a time, so the producer sweep cannot drive it"),
        (["--strategy", "no_such_module_here:Mine"], "--strategy no_such_module_here:Mine"),
        (["--consumers", "1:5", "--timeout", "3"], "--consumers, --timeout does not apply to the producer sweep"),
    ],
)
def test_bad_producer_options_are_one_line_errors(capsys, options, error):
    assert main(["sweep", "--producer", *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rmq-conformance sweep: error: ") and error in err and err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--mode", "producer"], "unrecognized arguments: --mode producer; the sweep's modes are flags: --producer,"),
        (["--producer", "--paterns", "slow"], "unrecognized arguments: --paterns slow; did you mean --patterns?"),
    ],
)
def test_an_unknown_sweep_option_is_told_with_the_sweeps_usage_and_a_hint(capsys, options, says):
    with pytest.raises(SystemExit) as exited:
        main(["sweep", *options])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: rmq-conformance sweep ") and "--patterns LIST" in err
    assert f"rmq-conformance sweep: error: {says}" in err


def test_producer_options_need_the_producer_mode(capsys):
    assert main(["sweep", "--brokers", "2:3"]) == 2
    assert "--brokers does not apply to the allocation sweep (without --producer or --groups)" in capsys.readouterr().err
    assert main(["sweep", "--scenarios", "-1"]) == 2


# -- on Spark ---------------------------------------------------------------------------


@pytest.mark.once
@pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="the sweep runs on PySpark: the sweep extra")
def test_the_command_sweeps_on_local_spark_and_its_files_agree(user_strategies, capsys):
    """The reference ports and two strategies of the user's, one of which raises in some runs."""
    import pyarrow.parquet as pq

    from pytest_rmq_conformance.pipeline.producer.plots import ISOLATION_PLOT, RECOVERY_PLOT, SHARE_PLOT

    out = user_strategies / "producer"
    mine = ["userfault:Mine", "userfault:Flaky"]
    argv = ["sweep", "--producer", "--scenarios", "10", "--master", "local[2]", "--partitions", "2", "--out", str(out), "--quiet"]
    assert main([*argv, "--strategy", mine[0], "--strategy", mine[1]]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].startswith("fault pattern  release or strategy  latency fault")
    assert f"report: {out / 'report.html'}" in printed
    for name in ("summary.json", "report.md", "report.html", "spark.log", SHARE_PLOT, RECOVERY_PLOT, ISOLATION_PLOT):
        assert (out / name).is_file(), name
    for plot in (SHARE_PLOT, RECOVERY_PLOT, ISOLATION_PLOT):
        assert (out / plot).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    configs = configurations(mine)
    summary = json.loads((out / "summary.json").read_text())
    rows = pq.read_table(out / "results").to_pylist()
    assert summary["configurations"] == [c.as_dict() for c in configs]
    assert len(rows) == 10 * len(configs) and len(summary["groups"]) == 5 * len(configs)
    key = ("pattern", "strategy", "release", "latency_fault")
    for group in summary["groups"]:
        ours = [r for r in rows if all(r[k] == group[k] for k in key)]
        assert group["scenarios"] == len(ours) == 2
        for field in ("sends", "first_to_degraded", "failed", "attempts"):
            assert group[field] == sum(r[field] for r in ours), field
        if group["sends"]:
            assert group["degraded_share"] == round(group["first_to_degraded"] / group["sends"], 4)
            assert group["attempts_per_message"] == round(group["attempts"] / group["sends"], 4)
        returned = [r["returned_after_ms"] for r in ours if r["returned_after_ms"] is not None]
        assert group["returned"] == len(returned) and group["never_returned"] == 2 - len(returned)
        assert group["returned_after_ms"]["max"] == (max(returned) if returned else None)
        assert group["errors"] == sum(bool(r["error"]) for r in ours)
        assert group["errors"] == (2 if (group["strategy"], group["latency_fault"]) == ("userfault:Flaky", True) else 0)
        if group["strategy"] == "userfault:Mine":  # the 5.3.3 port under another name
            (port,) = [g for g in summary["groups"] if (g["pattern"], g["strategy"], g["release"], g["latency_fault"])
                       == (group["pattern"], "reference", "5.3.3", group["latency_fault"])]
            assert {k: v for k, v in group.items() if k != "strategy"} == {k: v for k, v in port.items() if k != "strategy"}
    # each row is what the simulation gives for its scenario
    row = next(r for r in rows if r["scenario"] == 7 and (r["strategy"], r["release"], r["latency_fault"]) == ("reference", "5.3.3", True))
    direct = simulate(reference_factory("5.3.3"), ProducerSpace(count=10).scenario(7), True)
    assert (row["sends"], row["first_to_degraded"], row["returned_after_ms"]) == (direct.sends, direct.first_to_degraded, direct.returned_after)
    assert "userfault:Flaky: 10 of 20 scenario runs ended on an exception, the first: scenario 0, on: at " in printed
    assert f"{mine[0]}, {mine[1]}: played through the send loop of 5.3.3" in printed

    report = (out / "report.md").read_text(encoding="utf-8")
    assert "550 ms of latency isolates a broker for 3,000 ms; the code: 4.7.1 30,000 ms, 4.9.8 30,000 ms, 5.3.3 2,000 ms" in report
    assert "Your strategy userfault:Mine, played through 5.3.3's send loop (5.3.3's reference port in parentheses). One broker slow: " in report
    assert "10 of its 20 scenario runs ended on an exception it raised" in report
    assert "| userfault:Flaky | on | 2 |" in report and "| Runs ended on an exception |" in report and "Scenario 0, userfault:Flaky, sendLatencyFaultEnable on: at " in report
    for plot in (SHARE_PLOT, RECOVERY_PLOT, ISOLATION_PLOT):
        assert f"]({plot})" in report and f'src="{plot}"' in (out / "report.html").read_text(encoding="utf-8")


# -- the report's plots and page, from a summary built here (no Spark) -----------------------


def _summary(sends=lambda pattern, config: 1200):
    """A producer summary of 10 scenarios (2 a pattern) under the reference configurations, every
    group with ``sends(pattern, config)`` sends; checked against the summary's schema."""
    from pytest_rmq_conformance.pipeline.producer.isolation import isolation_tables
    from pytest_rmq_conformance.pipeline.producer.summary import validate_summary

    space = ProducerSpace(count=10)
    groups = []
    for pattern in space.patterns:
        for config in configurations():
            count = sends(pattern, config)
            groups.append(
                {**config.as_dict(), "pattern": pattern, "scenarios": 2, "sends": count, "first_to_degraded": count // 10,
                 "failed": 0, "attempts": count, "latency_ms": 15 * count, "degraded_share": 0.1, "uniform_share": 0.33,
                 "failed_share": 0.0, "attempts_per_message": 1.0, "latency_per_message_ms": 15.0, "returned": 2,
                 "never_returned": 0, "returned_after_ms": {"p50": 150.0, "p90": 600.0, "max": 800},
                 "lost_from_list": 0, "errors": 0}
            )  # fmt: skip
    summary = {
        "tool": "pytest-rmq-conformance test", "mode": "producer", "space": space.describe(),
        "configurations": [c.as_dict() for c in configurations()], "master": "local[2]", "partitions": 2,
        "elapsed_seconds": 1.0, "groups": groups, "isolation": isolation_tables(), "errors": [],
    }  # fmt: skip
    validate_summary(summary)
    return summary


def _titles(fig):
    """The figure's title and its visible panels' titles."""
    suptitle = fig._suptitle.get_text() if fig._suptitle else ""
    return suptitle, [ax.get_title() for ax in fig.axes if ax.get_visible()]


def test_every_producer_plot_states_its_n():
    pytest.importorskip("matplotlib")
    from pytest_rmq_conformance.pipeline.producer.plots import isolation_figure, recovery_figure, share_figure

    summary = _summary()
    whole, panels = _titles(share_figure(summary))
    assert "n = 36,000 sends during the fault in 60 scenario runs" in whole  # 5 patterns x 6 configurations
    assert len(panels) == 5 and all(title.endswith("\nn = 1,200 sends a bar") for title in panels), panels
    whole, panels = _titles(recovery_figure(summary))
    assert "n = 48 scenario runs, of which 48 saw the broker get sends again" in whole  # the control has no recovery
    assert len(panels) == 4 and all(title.endswith("\nn = 2 scenarios a bar") for title in panels), panels
    _, (title,) = _titles(isolation_figure(summary))
    assert "n = 3 releases: computed by each port, not sampled" in title


def test_a_panel_whose_bars_stand_on_different_counts_gives_the_range():
    pytest.importorskip("matplotlib")
    from pytest_rmq_conformance.pipeline.producer.plots import share_figure

    summary = _summary(lambda pattern, config: 1000 + 500 * config.latency_fault if pattern == "slow" else 1200)
    _, panels = _titles(share_figure(summary))
    assert panels[1] == "one broker slow\nn = 1,000–1,500 sends a bar"
    assert panels[0].endswith("\nn = 1,200 sends a bar")


def test_the_producer_page_reads_on_a_phone():
    from responsive import responsive_problems

    from pytest_rmq_conformance.pipeline.producer.report import render_producer_html

    page = render_producer_html(_summary())
    assert responsive_problems(page) == []
    assert "<h1>Producer sweep: does sendLatencyFaultEnable help?</h1>" in page
