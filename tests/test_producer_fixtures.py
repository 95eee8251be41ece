"""The producer fixtures as a user's test file sees them: documented with examples that run, the
README example passing at every release and against a client's own classes, and the simulated
sends doing what Java's sendDefaultImpl does with a slow, down or erring broker."""

from __future__ import annotations

import doctest
import re
import textwrap
from pathlib import Path

import pytest
from docs_pages import documentation

from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.plugin import producer_fixtures
from pytest_rmq_conformance.ports.producer import MQFaultStrategy, sending
from pytest_rmq_conformance.ports.producer.sending import (
    BROKER_ERROR,
    FAILED,
    NO_QUEUE,
    SEND_OK,
    TIMEOUT,
    SimulatedRoute,
)
from pytest_rmq_conformance.processqueue.clock import ManualClock

ROOT = Path(__file__).resolve().parent.parent
ADAPTER = ROOT / "examples" / "producer-adapter"
Q = ["-p", "no:cacheprovider", "-p", "no:randomly"]
RELEASES = ["4.7.1", "4.9.8", "5.3.3"]


def readme_example() -> str:
    marker = r"A test file of your own, `test_my_producer.py`:\n\n```python\n(.*?)```"
    found = re.search(marker, documentation(), re.DOTALL)
    assert found is not None, "the README lost its example test file"
    return found.group(1)


def docstring_example(fixture) -> str:
    doc = fixture.__doc__
    assert "Example::" in doc, fixture
    return textwrap.dedent(doc.split("Example::", 1)[1]).strip() + "\n"


# -- documentation ----------------------------------------------------------


def test_the_sending_docstring_example_runs():
    found = doctest.testmod(sending)
    assert found.attempted > 0 and found.failed == 0


def test_every_producer_fixture_is_documented_with_an_example(pytester):
    result = pytester.runpytest(*Q, "--fixtures", "-v")
    blocks: dict[str, list[str]] = {}  # fixture name -> its listing (the header line and the indented docstring)
    for line in result.stdout.lines:
        if line and not line[0].isspace():
            name = line.split(" ", 1)[0]
            blocks[name] = [line]
        elif blocks:
            blocks[name].append(line)
    for name in ["rmq_route", "rmq_fault_strategy"]:
        assert "session scope" in blocks[name][0], name
        assert any("Example::" in line for line in blocks[name]), name


@pytest.mark.parametrize("release", RELEASES)
def test_the_fixture_examples_and_the_readme_example_pass(pytester, release):
    pytester.makepyfile(
        test_route=docstring_example(producer_fixtures.rmq_route),
        test_strategy=docstring_example(producer_fixtures.rmq_fault_strategy),
        test_my_producer=readme_example(),
    )
    result = pytester.runpytest(*Q, f"--rmq-reference-version={release}")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=5)


@pytest.mark.parametrize("release", ["4.9.8", "5.3.3"])
def test_the_readme_example_runs_against_a_clients_own_classes(pytester, release):
    pytester.makepyfile(
        adapter=(ADAPTER / "adapter.py").read_text(),
        myclient=(ADAPTER / "myclient.py").read_text(),
        test_my_producer=readme_example(),
        test_which="def test_which(rmq_fault_strategy):\n"
        "    assert type(rmq_fault_strategy()).__name__ == 'MyFaultStrategy'\n"
        "    assert rmq_fault_strategy.under_test == 'adapter:MyFaultStrategy (FAULT_STRATEGY)'\n"
        "    assert type(rmq_fault_strategy.reference()).__name__ == 'MQFaultStrategy'\n",
    )
    pytester.syspathinsert()
    result = pytester.runpytest(*Q, "--rmq-strategy=adapter:MyFaultStrategy", f"--rmq-reference-version={release}", "test_my_producer.py", "test_which.py")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=4)


def test_a_strategy_of_another_kind_leaves_the_reference_port_under_test(pytester):
    pytester.makepyfile(
        "def test_which(rmq_fault_strategy):\n"
        "    assert rmq_fault_strategy.under_test == 'FAULT_STRATEGY 4.9.8 (reference port)'\n"
        "    strategy = rmq_fault_strategy()\n"
        "    assert (type(strategy).__name__, strategy.version) == ('MQFaultStrategy', '4.9.8')\n"
    )
    result = pytester.runpytest(*Q, "--rmq-strategy=AVG", "--rmq-reference-version=4.9.8", "test_a_strategy_of_another_kind_leaves_the_reference_port_under_test.py")
    result.assert_outcomes(passed=1)


def test_a_harness_cannot_be_driven_and_says_so(pytester):
    pytester.makepyfile(
        "def test_send(rmq_fault_strategy):\n"
        "    assert type(rmq_fault_strategy.reference()).__name__ == 'MQFaultStrategy'\n"
        "    assert repr(rmq_fault_strategy) == '<rmq_fault_strategy: --rmq-strategy=FAULT_STRATEGY>'\n"
        "    rmq_fault_strategy()\n"
    )
    result = pytester.runpytest(*Q, "--rmq-strategy=FAULT_STRATEGY", "--rmq-isolate", "test_a_harness_cannot_be_driven_and_says_so.py")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*a harness (an exec: strategy, or --rmq-isolate) answers whole golden traces*"])
    assert "Traceback" not in result.stdout.str()


def test_an_unused_plugin_imports_no_producer_model(pytester):
    pytester.makepyfile(
        "import sys\n\n"
        "def test_own():\n"
        "    assert not [m for m in sys.modules if m.startswith('pytest_rmq_conformance.ports.producer')]\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()


# -- the simulated sends --------------------------------------------------------


def strategy_at(rmq_fault_strategy, release: str, **config):
    return rmq_fault_strategy.reference(version=release, send_latency_fault_enable=True, **config)


@pytest.mark.parametrize(("release", "penalty"), [("4.7.1", 30000), ("4.9.8", 30000), ("5.3.3", 2000)])
def test_a_slow_broker_is_isolated_by_the_release_table_and_comes_back(rmq_route, rmq_fault_strategy, rmq_clock, release, penalty):
    route = rmq_route(version=release)
    strategy = strategy_at(rmq_fault_strategy, release)
    route.slow("broker-a", ms=600)
    sent = route.send(strategy)
    while sent.queue.broker_name != "broker-a":
        sent = route.send(strategy)
    (attempt,) = sent.attempts
    assert (attempt.latency, attempt.isolation, attempt.error) == (600, False, None)
    end = attempt.started + 600
    assert rmq_clock.now() == end
    item = route.fault_table(strategy)["broker-a"]
    assert (item.latency, item.start_timestamp) == (600, end + penalty)
    assert [route.send(strategy).queue.broker_name for _ in range(6)] == ["broker-b"] * 6
    rmq_clock.set(end + penalty - 1)
    assert route.unavailable(strategy) == {"broker-a"}
    rmq_clock.advance(1)
    assert route.unavailable(strategy) == set()
    route.healthy("broker-a")
    assert "broker-a" in {route.send(strategy).queue.broker_name for _ in range(4)}


def test_each_broker_may_have_its_own_healthy_latency_and_comes_back_to_it(rmq_route, rmq_fault_strategy, rmq_clock):
    route = rmq_route({"broker-a": 1, "broker-b": 1}, latency=7, latencies={"broker-b": 40})
    strategy = rmq_fault_strategy()
    assert [route.state(name) for name in route.brokers] == ["up 7 ms", "up 40 ms"]
    route.down("broker-b", ms=3)
    route.healthy("broker-b")
    route.error("broker-a", code=25)
    assert route.state("broker-b") == "up 40 ms" and route.state("broker-a") == "error 25 after 7 ms"
    route.healthy()
    sent = [route.send(strategy) for _ in range(2)]
    assert sorted((s.attempts[0].broker, s.cost) for s in sent) == [("broker-a", 7), ("broker-b", 40)]
    with pytest.raises(ValueError, match="no broker 'broker-c'"):
        rmq_route(latencies={"broker-c": 5})


def test_below_the_first_penalised_step_a_slow_broker_is_not_isolated(rmq_route, rmq_fault_strategy):
    route = rmq_route(version="5.3.3")
    strategy = strategy_at(rmq_fault_strategy, "5.3.3")
    route.slow("broker-a", ms=549)
    brokers = [route.send(strategy).queue.broker_name for _ in range(6)]
    assert brokers.count("broker-a") == 3 and route.unavailable(strategy) == set()


@pytest.mark.parametrize(("release", "isolated_for"), [("4.7.1", 600000), ("4.9.8", 600000), ("5.3.3", 10000)])
def test_a_down_broker_makes_the_send_retry_on_another_broker_until_it_recovers(rmq_route, rmq_fault_strategy, rmq_clock, release, isolated_for):
    route = rmq_route({"broker-a": 2, "broker-b": 2, "broker-c": 2}, version=release)
    strategy = strategy_at(rmq_fault_strategy, release)
    route.down("broker-b", ms=5)
    sent = route.send(strategy)
    while "broker-b" not in sent.brokers:
        sent = route.send(strategy)
    failed, stored = sent.attempts
    assert sent.status == SEND_OK and sent.queue == stored.queue and stored.broker != "broker-b"
    assert (failed.broker, failed.error, failed.latency, failed.isolation, failed.reachable) == ("broker-b", "RemotingConnectException", 5, True, True)
    assert route.fault_table(strategy)["broker-b"].start_timestamp == failed.started + 5 + isolated_for
    assert "broker-b" not in {b for _ in range(9) for b in route.send(strategy).brokers}
    rmq_clock.set(failed.started + 5 + isolated_for)
    route.healthy("broker-b")
    back = [route.send(strategy) for _ in range(6)]
    assert all(len(one.attempts) == 1 for one in back) and "broker-b" in {one.queue.broker_name for one in back}


@pytest.mark.parametrize("release", RELEASES)
def test_every_attempt_selects_with_the_last_broker_and_5x_resets_the_index(release):
    clock = ManualClock()
    calls = []

    class Recording(MQFaultStrategy):
        def select_one_message_queue(self, info, last_broker_name, reset_index=False):
            calls.append((last_broker_name, reset_index))
            return super().select_one_message_queue(info, last_broker_name, reset_index)

    route = SimulatedRoute({"broker-a": 1, "broker-b": 1, "broker-c": 1}, clock=clock, version=release)
    for name in route.brokers:
        route.down(name)
    sent = route.send(Recording(clock=clock, version=release))
    assert sent.status == FAILED and len(sent.attempts) == 3
    fifth = release.startswith("5.")
    assert calls == [(None, False), (sent.brokers[0], fifth), (sent.brokers[1], fifth)]
    assert len(set(sent.brokers)) == 3  # the last broker avoided every time


def test_5x_with_the_detector_marks_a_down_broker_unreachable_until_a_detector_round(rmq_route, rmq_fault_strategy, rmq_clock):
    route = rmq_route(version="5.3.3")
    strategy = strategy_at(rmq_fault_strategy, "5.3.3")
    route.down("broker-a")
    sent = route.send(strategy, start_detector_enable=True)
    while "broker-a" not in sent.brokers:
        sent = route.send(strategy, start_detector_enable=True)
    assert sent.attempts[0].reachable is False
    assert route.fault_table(strategy)["broker-a"].reachable is False
    route.detect(strategy)  # still down: stays unreachable, and is looked at again in 2 s
    assert route.fault_table(strategy)["broker-a"].reachable is False
    route.healthy("broker-a")
    route.detect(strategy)
    assert route.fault_table(strategy)["broker-a"].reachable is False
    rmq_clock.advance(2000)
    route.detect(strategy)
    assert route.fault_table(strategy)["broker-a"].reachable is True


def test_a_reply_later_than_the_send_timeout_ends_the_send(rmq_route, rmq_fault_strategy, rmq_clock):
    route = rmq_route({"broker-a": 1}, version="4.9.8")
    strategy = strategy_at(rmq_fault_strategy, "4.9.8")
    route.slow("broker-a", ms=5000)
    sent = route.send(strategy, timeout=3000)
    (attempt,) = sent.attempts
    assert (sent.status, attempt.error, attempt.latency, attempt.isolation) == (TIMEOUT, "RemotingTimeoutException", 3001, True)
    assert rmq_clock.now() == 3001 and sent.cost == 3001
    assert route.fault_table(strategy)["broker-a"].latency == 3001  # one update: none for the attempt never made


@pytest.mark.parametrize(
    ("release", "code", "status", "attempts"),
    [
        ("4.9.8", 14, FAILED, 3),  # SERVICE_NOT_AVAILABLE: retried everywhere
        ("4.9.8", 2, BROKER_ERROR, 1),  # SYSTEM_BUSY: retried from 5.x on
        ("5.3.3", 2, FAILED, 3),
        ("5.3.3", 25, BROKER_ERROR, 1),  # SUBSCRIPTION_NOT_EXIST: never
    ],
)
def test_a_broker_error_is_retried_only_for_the_releases_retry_codes(rmq_route, rmq_fault_strategy, release, code, status, attempts):
    route = rmq_route(version=release)
    strategy = strategy_at(rmq_fault_strategy, release)
    for name in route.brokers:
        route.error(name, code=code)
    sent = route.send(strategy)
    assert (sent.status, len(sent.attempts)) == (status, attempts)
    assert all(a.error == f"MQBrokerException({code})" and a.isolation for a in sent.attempts)
    assert all(a.reachable is (release == "4.9.8") for a in sent.attempts)  # 5.x: unreachable


def test_a_queue_of_a_broker_the_route_lacks_is_a_client_exception():
    clock = ManualClock()

    class Astray(MQFaultStrategy):
        def select_one_message_queue(self, info, last_broker_name, reset_index=False):
            return MessageQueue("TopicTest", "broker-x", 0) if last_broker_name is None else None

    route = SimulatedRoute({"broker-a": 1}, clock=clock, version="4.9.8")
    strategy = Astray(clock=clock, version="4.9.8")
    strategy.send_latency_fault_enable = True
    sent = route.send(strategy)
    assert sent.status == NO_QUEUE and [(a.broker, a.error, a.isolation) for a in sent.attempts] == [("broker-x", "MQClientException", True)]
    assert route.unavailable(strategy) == {"broker-x"}


def test_the_sends_are_repeatable(rmq_route, rmq_fault_strategy):
    def run():
        route = rmq_route({"broker-a": 3, "broker-b": 3, "broker-c": 3})
        strategy = rmq_fault_strategy(send_latency_fault_enable=True)
        route.slow("broker-c", ms=2000)
        route.down("broker-a")
        return [str(route.send(strategy)) for _ in range(12)]

    assert run() == run()


# -- bad input ----------------------------------------------------------------


def test_bad_input_fails_at_once_with_a_clear_message(rmq_route):
    route = rmq_route()
    with pytest.raises(ValueError, match=r"no broker 'broker-c' in this route \(it has broker-a, broker-b\)"):
        route.down("broker-c")
    with pytest.raises(ValueError, match=r"the latency of 'broker-a' cannot be negative \(-5 ms\)"):
        route.slow("broker-a", ms=-5)
    with pytest.raises(TypeError, match="whole number of milliseconds"):
        route.slow("broker-a", ms=1.5)
    with pytest.raises(ValueError, match="cannot be negative"):
        route.send(MQFaultStrategy(clock=ManualClock()), timeout=-1)
    with pytest.raises(ValueError, match="retries is a count"):
        route.send(MQFaultStrategy(clock=ManualClock()), retries=-1)
    with pytest.raises(ValueError, match="positive number of write queues"):
        rmq_route({"broker-a": 0})
    with pytest.raises(ValueError, match="maps each broker name"):
        rmq_route({})
    with pytest.raises(TypeError, match=r"now\(\) and advance\(ms\)"):
        rmq_route(clock=MQFaultStrategy().clock)
    with pytest.raises(ValueError, match=r"4\.9\.8 or 5\.3\.3"):
        rmq_route(version="6.0")
