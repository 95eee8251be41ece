"""Drive a producer's selection through a golden case and find where it first leaves Java.

A fault-strategy trace is played step by step, as the Java harness played it: the clock set,
the route made a publish info whose counter is pinned, then each step. After every step the
observable state is compared with Java's, as Java can observe it: the queue returned by value
(its place in the list is shown, not compared: an equal copy sends where the list's own entry
does), the stored counter as Java's int, the list's changed entries (4.7.1 rewrites them), and
the fault table, its order only at 4.9.8, whose ``pickOneAtLeast`` reads it (4.7.1 shuffles
first, 5.3.3 reads none). The replay stops at the first difference. A selector case is one call
per queue count; its calls are independent, and the case is classed by its worst.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from operator import is_
from typing import Any

from pytest_rmq_conformance.engine.divergence import COUNTER_DRIFT, ERROR_BEHAVIOUR, FAULT, SEVERITY, WRONG_QUEUES
from pytest_rmq_conformance.engine.divergence import worst as worst_class
from pytest_rmq_conformance.engine.running.timeouts import (
    CallTimeout,
    Fault,
    StrategyExit,
    answer_of,
    call_with_timeout,
    time_limits,
)
from pytest_rmq_conformance.javalang import HashCodeOf, JavaInteger, JavaLong, java_long
from pytest_rmq_conformance.kinds.producer.cases import (
    Answers,
    NotRun,
    SelectorCase,
    StepAnswers,
    TraceCase,
    publish_list,
)
from pytest_rmq_conformance.kinds.producer.drift import takes_alike, when_it_shows
from pytest_rmq_conformance.kinds.producer.release import producer_release
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.producer.contract import BrokerData, QueueData, TopicRouteData

__all__ = [
    "Fault",
    "TraceClock",
    "StepMismatch",
    "Row",
    "ObservedState",
    "observe_trace",
    "compare_trace",
    "probe_steps",
    "replay_trace",
    "observe_selector",
    "SelectorMismatch",
    "compare_selector",
    "replay_selector",
    "route_of",
    "selector_arg",
]

#: Java exceptions whose Python counterpart is fixed; any other needs some exception
_EXCEPTIONS = {"java.lang.IllegalArgumentException": ValueError}


class TraceClock:
    """The trace's time, in milliseconds, moved only by its steps."""

    def __init__(self, start: int):
        self._now = int(start)

    def now(self) -> int:
        return self._now

    def advance(self, millis: int) -> None:
        self._now = java_long(self._now + int(millis))  # Java's long wraps


@dataclass(frozen=True)
class Row:
    """The state before one step, and what Java and the strategy answered to it."""

    index: int
    step: Mapping[str, Any]
    clock: int
    counter: int | None
    queues: tuple[tuple[str, int], ...]
    table: tuple[tuple[str, int, int], ...]  # (broker, latency, startTimestamp)
    java: Any
    answer: Any


@dataclass(frozen=True)
class StepMismatch:
    """The first step whose observable state differs from Java's."""

    case_id: str
    run: str
    index: int  # the step (or, for a selector, the call), from 0; -1: the publish list of the route
    problem: str
    divergence_class: str
    rows: tuple[Row, ...] = field(default=(), compare=False)
    raised: BaseException | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.case_id} @ {self.run}, step {self.index}: {self.problem}"


def route_of(data: Mapping[str, Any]) -> TopicRouteData:
    """A golden route as a :class:`~pytest_rmq_conformance.ports.producer.contract.TopicRouteData`."""
    return TopicRouteData(
        queue_datas=[QueueData(name, count, perm, count) for name, count, perm in data["queueDatas"]],
        broker_datas=[BrokerData(name, {int(i): f"{name}-addr-{i}" for i in ids}) for name, ids in data["brokerDatas"]],
        order_topic_conf=data["orderTopicConf"],
    )


def selector_arg(arg: Mapping[str, Any] | None) -> Any:
    """A golden selector argument as the suite passes it: ``str``, ``None`` or a Java number."""
    if arg is None or arg["type"] == "null":
        return None
    kind, value = arg["type"], arg.get("value")
    return {"string": str, "integer": JavaInteger, "long": JavaLong, "hashCode": HashCodeOf}[kind](value)


def _error_problem(java: Mapping[str, Any], raised: BaseException | None, what: str) -> str | None:
    """Whether ``raised`` answers Java's exception ``java`` (``None``: it does)."""
    wanted = _EXCEPTIONS.get(java["error"], Exception)
    short = java["error"].rsplit(".", 1)[-1]
    if raised is None:
        return f"Java threw {short}({java.get('message')!r}); {what} did not raise"
    if not isinstance(raised, wanted):
        return f"Java threw {short}; expected {wanted.__name__}, but {what} raised {type(raised).__name__}: {raised}"
    return None


def _get(what: str, func: Callable[[], Any]) -> Any:
    """What ``func`` reads of the strategy's state, inside a call already under the time limit;
    :class:`Fault` naming ``what`` when that cannot be read."""
    try:
        return func()
    except Exception as exc:
        raise Fault(f"{what} raised {type(exc).__name__}: {exc}", exc) from None


def _limited(func: Callable[[], Any], timeout: float | None) -> Any:
    """``func()``, the reads and calls of one step, under one time limit: :class:`Fault` for a
    hang or a ``sys.exit``; what ``func`` raises otherwise."""
    try:
        return call_with_timeout(func, timeout)
    except CallTimeout as exc:
        raise Fault(f"did not return: {exc} (--rmq-timeout)", exc) from None
    except StrategyExit as exc:
        raise Fault(str(exc)) from None


class _Trace:
    """One fault-strategy trace being played against ``strategy``.

    A step's calls and reads go under one time limit. The publish list's entries and the
    fault items are checked when they are read, except those that are the very objects
    checked at the last read (the usual case: a select leaves them as they were)."""

    def __init__(self, case: TraceCase, strategy: Any, clock: TraceClock, timeout: float | None):
        self.case, self.strategy, self.clock, self.timeout = case, strategy, clock, timeout
        self.info: Any = None
        self._listed: list[Any] = []  # the entries checked last
        self._itemised: list[Any] = []  # the fault items checked last

    # -- state ---------------------------------------------------------------

    def _read(self, what: str, func: Callable[[], Any]) -> Any:
        """What ``func`` reads of the strategy's state, under the time limit; :class:`Fault`
        naming ``what`` when that cannot be read."""
        return _limited(partial(_get, what, func), self.timeout)

    def entries(self, read: Callable[[str, Callable[[], Any]], Any] | None = None) -> list[MessageQueue]:
        """The publish list's entries, each a ``MessageQueue`` of the case's topic (read under
        its own time limit, or by ``read`` inside a limited call)."""
        entries = (read or self._read)("the publish info's queues", lambda: list(self.info.queues))
        listed = self._listed
        if len(entries) != len(listed) or not all(map(is_, entries, listed)):
            self._check_entries(entries)
        return entries

    def _check_entries(self, entries: list[Any]) -> None:
        """:class:`Fault` unless every entry is a ``MessageQueue`` of the case's topic; then
        they are the entries checked last."""
        topic = self.case.topic
        for position, mq in enumerate(entries):
            if type(mq) is not MessageQueue or mq.topic != topic:
                shown = f"{type(mq).__name__} {mq!r:.60}"
                raise Fault(f"the publish list holds {shown} at position {position}, not a MessageQueue of topic {topic!r}")
        self._listed = entries

    def queues(self) -> tuple[tuple[str, int], ...]:
        return tuple((mq.broker_name, mq.queue_id) for mq in self.entries()) if self.info is not None else ()

    def counter(self, read: Callable[[str, Callable[[], Any]], Any] | None = None) -> int | None:
        return None if self.info is None else (read or self._read)("the counter's stored value", lambda: self.info.send_which_queue.stored)

    def items(self, read: Callable[[str, Callable[[], Any]], Any] | None = None) -> list[Any]:
        items = (read or self._read)("fault_items()", lambda: list(self.strategy.fault_items()))
        itemised = self._itemised
        if len(items) != len(itemised) or not all(map(is_, items, itemised)):
            self._check_items(items)
        return items

    def _check_items(self, items: list[Any]) -> None:
        """:class:`Fault` unless every item has a name, a latency and a start timestamp; then
        they are the items checked last."""
        itemised = self._itemised
        for index, item in enumerate(items):
            if index < len(itemised) and item is itemised[index]:
                continue  # checked last time (an update replaces one item)
            if not (hasattr(item, "name") and hasattr(item, "latency") and hasattr(item, "start_timestamp")):
                raise Fault(f"fault_items() gave {type(item).__name__} {item!r:.60}, not a FaultItem")
        self._itemised = items

    def table(self, items: list[Any] | None = None) -> dict[str, dict[str, Any]]:
        return {
            item.name: {"latency": item.latency, "startTimestamp": item.start_timestamp,
                        "reachable": getattr(item, "reachable", True), "checkStamp": getattr(item, "check_stamp", 0)}
            for item in (self.items() if items is None else items)
        }

    def worst(self, read: Callable[[str, Callable[[], Any]], Any] | None = None) -> int | None:
        counter = getattr(self.strategy, "which_item_worst", None)
        return None if counter is None else (read or self._read)("which_item_worst's stored value", lambda: counter.stored)

    def configure(self, params: Mapping[str, Any], initial: Mapping[str, Any]) -> None:
        """Set the configuration as Java's setters did, and pin 4.x's ``whichItemWorst``."""
        strategy = self.strategy

        def setters() -> None:
            strategy.send_latency_fault_enable = params["sendLatencyFaultEnable"]
            if params["latencyMax"] is not None:
                strategy.latency_max = list(params["latencyMax"])
            if params["notAvailableDuration"] is not None:
                strategy.not_available_duration = list(params["notAvailableDuration"])
            worst = getattr(strategy, "which_item_worst", None)
            if worst is not None:
                worst.pin(initial["worstIndex"], initial["worstIndexSeed"])

        self._read("configuring the strategy", setters)

    def install(self, route: Mapping[str, Any], stored: int | None, seed: int) -> tuple[tuple[str, int], ...]:
        self.info = self._read("publish_info", lambda: self.strategy.publish_info(self.case.topic, route_of(route)))
        self._read("pinning the counter", lambda: self.info.send_which_queue.pin(stored, seed))
        return self.queues()

    # -- one step ------------------------------------------------------------

    def play(self, step: Mapping[str, Any]) -> Any:
        """Take ``step``; what can be observed of it, in the vectors' vocabulary."""
        op = step["op"]
        if op in ("select", "tp_select"):
            func = partial(self._select, op, step)
        elif op == "update":
            func = partial(self._update, step)
        elif op in _OTHER_OPS:
            return self._other(op, step)
        else:  # an op of no other kind is played as a select
            func = partial(self._select, op, step)
        try:  # the step's calls and reads under one limit
            return call_with_timeout(func, self.timeout)
        except CallTimeout as exc:
            raise Fault(f"did not return: {exc} (--rmq-timeout)", exc) from None
        except StrategyExit as exc:
            raise Fault(str(exc)) from None

    def _other(self, op: str, step: Mapping[str, Any]) -> Any:
        """A step that is not a select or an update."""
        if op == "advance":
            self.clock.advance(step["ms"])
            return None
        if op == "set_index":
            self._read("setting the counter", partial(setattr, self.info.send_which_queue, "stored", step["value"]))
            return None
        if op == "set_latency":
            self._read("setting send_latency_fault_enable", partial(setattr, self.strategy, "send_latency_fault_enable", step["enable"]))
            return None
        if op == "route":
            return {"publishListRuns": self.install(step["route"], step["sendIndex"], step["sendIndexSeed"])}
        detect = getattr(self.strategy, "detect_by_one_round", None)
        if detect is not None:
            resolve, reachable = step["resolve"], set(step["reachableAddrs"])
            self._read("detect_by_one_round", partial(detect, resolve.get, lambda addr, timeout: addr in reachable))
        return {"tableAfter": self.table()}

    def _read_items(self) -> list[Any]:
        """:meth:`items`, inside a limited call."""
        try:
            items = list(self.strategy.fault_items())
        except Exception as exc:
            raise Fault(f"fault_items() raised {type(exc).__name__}: {exc}", exc) from None
        itemised = self._itemised
        if len(items) != len(itemised) or not all(map(is_, items, itemised)):
            self._check_items(items)
        return items

    def _update(self, step: Mapping[str, Any]) -> dict[str, Any]:
        """An update and the broker's fault item after it (inside a limited call)."""
        update, broker = self.strategy.update_fault_item, step["broker"]
        latency, isolation, reachable = step["latency"], step["isolation"], step["reachable"]
        try:
            update(broker, latency, isolation, reachable)
            raised = None
        except Exception as exc:  # an exception is an answer to compare
            raised = exc
        item = {item.name: item for item in self._read_items()}.get(step["broker"])  # :meth:`table`, for one item
        return {"item": None if item is None else self.table([item])[item.name], "raised": raised}

    def _select(self, op: str, step: Mapping[str, Any]) -> dict[str, Any]:
        """A select (``select`` or ``tp_select``) and the state it left (inside a limited call).
        The hot path of a replay: :meth:`entries`, :meth:`items`, :meth:`counter` and
        :meth:`worst` written out, with the same reads in the same order."""
        info, strategy = self.info, self.strategy
        try:
            before_list = list(info.queues)
        except Exception as exc:
            raise Fault(f"the publish info's queues raised {type(exc).__name__}: {exc}", exc) from None
        listed = self._listed
        if len(before_list) != len(listed) or not all(map(is_, before_list, listed)):
            self._check_entries(before_list)
        before_items = self._read_items()
        args: tuple[Any, ...]
        if op == "select":
            select, args = strategy.select_one_message_queue, (info, step["lastBroker"], step["resetIndex"])
        else:
            select, args = info.select_one_message_queue, (step["lastBroker"],)
        try:
            queue, raised = select(*args), None
        except Exception as exc:  # an exception is an answer to compare
            queue, raised = None, exc
        topic = self.case.topic
        if raised is None and queue is not None and (type(queue) is not MessageQueue or queue.topic != topic):
            what = f"a {type(queue).__name__}" if type(queue) is not MessageQueue else f"a queue of topic {queue.topic!r}"
            raise Fault(f"{op} returned {what} ({queue!r:.60}): the answer is a MessageQueue of topic {topic!r}, or None")
        try:
            after = list(self.info.queues)
        except Exception as exc:
            raise Fault(f"the publish info's queues raised {type(exc).__name__}: {exc}", exc) from None
        if len(after) == len(before_list) and all(map(is_, after, before_list)):
            changed: list[list[Any]] = []  # the usual: the very same entries
        else:
            self._check_entries(after)
            changed = [] if after == before_list else [
                [i, mq.broker_name, mq.queue_id] for i, mq in enumerate(after)
                if i >= len(before_list) or (mq.broker_name, mq.queue_id) != (before_list[i].broker_name, before_list[i].queue_id)
            ]
            if len(after) < len(before_list):
                raise Fault(f"{op} removed entries of the publish list ({len(before_list)} before, {len(after)} after)")
        items = self._read_items()
        position = None
        if queue is not None:
            for index, mq in enumerate(after):
                if mq is queue:
                    position = index
                    break
        info = self.info
        try:
            stored = None if info is None else info.send_which_queue.stored
        except Exception as exc:
            raise Fault(f"the counter's stored value raised {type(exc).__name__}: {exc}", exc) from None
        counter = getattr(strategy, "which_item_worst", None)
        try:
            worst = None if counter is None else counter.stored
        except Exception as exc:
            raise Fault(f"which_item_worst's stored value raised {type(exc).__name__}: {exc}", exc) from None
        same_items = len(items) == len(before_items) and all(map(is_, items, before_items))
        return {
            "queue": None if queue is None else [queue.broker_name, queue.queue_id],
            "listIndex": position,
            "storedIndexAfter": stored,
            "worstIndexAfter": worst,
            "listMutated": changed,
            "tableAfter": None if same_items or items == before_items else self.table(items),
            "raised": raised,
        }


_OTHER_OPS = frozenset({"advance", "set_index", "set_latency", "route", "detect"})


def _shown(queue: Sequence[Any] | None) -> str:
    """``[broker, queueId]`` as ``broker/queueId`` (``null`` for none)."""
    return "null" if queue is None else f"{queue[0]}/{queue[1]}"


def _item_problem(java: Mapping[str, Any] | None, got: Any) -> str | None:
    if java is None or got is None:
        return None if java is got else f"fault item {got if java is None else 'missing'}, Java's {java}"
    if not isinstance(got, Mapping):
        return f"fault item {got!r:.60}, not an object; Java's {java}"
    differs = [key for key in java if not _same(got.get(key), java[key])]
    return None if not differs else f"fault item {', '.join(f'{k}={got.get(k)!r}' for k in differs)}, Java's {', '.join(f'{k}={java[k]!r}' for k in differs)}"


def _table_problem(java: Mapping[str, Any], got: Any, what: str, ordered: bool) -> str | None:
    """How the fault table ``got`` differs from Java's; its order counts only where ``ordered``."""
    if not isinstance(got, Mapping):
        return f"{what}: {got!r:.60}, not an object of brokers; Java's {_brokers(java)}"
    if list(java) != list(got) and (ordered or set(java) != set(got)):
        return f"{what}: brokers {list(got)}, Java's {list(java)}" + (" (in Java's map order)" if ordered else "")
    for broker, item in java.items():
        problem = _item_problem(item, got[broker])
        if problem is not None:
            return f"{what}: {broker}: {problem}"
    return None


def _same(got: Any, java: Any) -> bool:
    """Equal as JSON values are, with ints that are ints (``True`` and ``1.0`` are not ``1``)."""
    if isinstance(java, list):
        return isinstance(got, (list, tuple)) and len(got) == len(java) and all(map(_same, got, java))
    if type(java) is int:
        return type(got) is int and got == java
    return got == java


def _select_problem(java: Mapping[str, Any], got: Mapping[str, Any], ordered: bool) -> tuple[str, str] | None:
    """(problem, class) when a select's outcome differs from Java's ``java``: the queue by
    value, then the state. After an exception Java's counter and table moved too; they are
    compared where the outcome has them."""
    if "error" in java:
        problem = _error_problem(java, got.get("raised"), "the strategy")
        if problem is not None:
            return (problem, ERROR_BEHAVIOUR)
        return _state_problem(java, got, ordered) if "storedIndexAfter" in got else None
    if got.get("raised") is not None:
        raised = got.get("raised")
        return (f"Java returned {_shown(java['queue'])}, but the strategy raised {type(raised).__name__}: {raised}", WRONG_QUEUES)
    if not _same(got.get("queue"), java["queue"]):
        return (f"queue {_shown(got.get('queue'))}, Java's {_shown(java['queue'])}", WRONG_QUEUES)
    return _state_problem(java, got, ordered)


def _state_problem(java: Mapping[str, Any], got: Mapping[str, Any], ordered: bool) -> tuple[str, str] | None:
    """(problem, counter drift) when the state a select left differs from what Java's left,
    but for the stored counter and the list's entries, which :class:`_Unshown` judges by the
    picks they lead to."""
    worst = got.get("worstIndexAfter")
    if "worstIndexAfter" in java and worst is not None and not _same(worst, java["worstIndexAfter"]):
        return (f"whichItemWorst counter {worst!r}, Java's {java['worstIndexAfter']}", COUNTER_DRIFT)
    table = got.get("tableAfter")
    if "tableAfter" in java and table is None:
        return (f"the call left the fault table as it was; Java's call changed it to {_brokers(java['tableAfter'])}", COUNTER_DRIFT)
    if table is not None and "tableAfter" not in java:
        return (f"the call changed the fault table to {_brokers(table)}; Java's call left it as it was", COUNTER_DRIFT)
    if table is not None:
        problem = _table_problem(java["tableAfter"], table, "fault table after the call", ordered)
        return None if problem is None else (problem, COUNTER_DRIFT)
    return None


def _brokers(table: Any) -> str:
    return f"brokers {list(table)}" if isinstance(table, Mapping) else repr(table)


def _step_problem(step: Mapping[str, Any], answer: Mapping[str, Any] | None, got: Any, ordered: bool = True) -> tuple[str, str] | None:
    """(problem, class) when ``got`` differs from Java's ``answer`` to ``step``; the fault
    table's order counts only where ``ordered``."""
    if answer is None:
        return None
    op = step["op"]
    if "expectOneOf" in answer:
        problems = [_select_problem(java, got, ordered) for java in answer["expectOneOf"]]
        if any(problem is None for problem in problems):
            return None
        shown = ", ".join(str(java.get("queue", java.get("error"))) for java in answer["expectOneOf"])
        nearest, divergence_class = max((p for p in problems if p is not None), key=lambda p: SEVERITY.index(p[1]))  # the least bad
        return (f"{nearest} (Java's tie allows any of {shown})", divergence_class)
    java = answer["expect"]
    if op in ("select", "tp_select"):
        return _select_problem(java, got, ordered)
    if op == "update":
        if "error" in java:
            problem = _error_problem(java, got.get("raised"), "the update")
            return None if problem is None else (problem, ERROR_BEHAVIOUR)
        if got.get("raised") is not None:
            return (f"update raised {type(got.get('raised')).__name__}: {got.get('raised')}", ERROR_BEHAVIOUR)
        problem = _item_problem(java["item"], got.get("item"))
        return None if problem is None else (problem, COUNTER_DRIFT)
    if op == "route":
        wanted = tuple(publish_list(java["publishListRuns"]))
        built = got.get("publishListRuns") or ()
        return None if built == wanted else (f"publish list {list(built)}, Java's {list(wanted)}", WRONG_QUEUES)
    if op == "detect":
        problem = _table_problem(java["tableAfter"], got.get("tableAfter"), "fault table after the detector round", ordered)
        return None if problem is None else (problem, COUNTER_DRIFT)
    return None


class ObservedState:
    """What a trace's observations say of the strategy's state before each step: the clock,
    the latency switch, the stored counter, the publish list (and the route's
    ``writeQueueNums``) and the fault table. The report's table shows it; the invariants read it."""

    def __init__(self, case: TraceCase, publish: Sequence[Sequence[Any]]):
        self.clock: int = case.initial["clockMs"]
        self.latency = bool(case.params["sendLatencyFaultEnable"])
        self.counter: int | None = case.initial["sendIndex"]
        self.queues: list[tuple[str, int]] = [(q[0], q[1]) for q in publish]
        self.table: dict[str, Mapping[str, Any]] = {}
        self.write_queue_nums = _write_queue_nums(case.route)

    def snapshot(self) -> tuple[int, int | None, tuple[tuple[str, int], ...], tuple[tuple[str, int, int], ...]]:
        table = tuple((name, item["latency"], item["startTimestamp"]) for name, item in self.table.items())
        return (self.clock, self.counter, tuple(self.queues), table)

    def available(self, broker: str) -> bool:
        item = self.table.get(broker)
        return item is None or java_long(self.clock - item["startTimestamp"]) >= 0

    def reachable(self, broker: str) -> bool:
        item = self.table.get(broker)
        return item is None or bool(item.get("reachable", True))

    def observe(self, step: Mapping[str, Any], got: Any) -> None:
        """Take ``step``, whose observation was ``got`` (``None`` where nothing is observed)."""
        got = got if isinstance(got, Mapping) else {}
        op = step["op"]
        if op == "advance":
            self.clock = java_long(self.clock + step["ms"])  # as the trace's clock does
        elif op == "set_index":
            self.counter = step["value"]
        elif op == "set_latency":
            self.latency = bool(step["enable"])
        elif op == "route":
            self.queues = [(q[0], q[1]) for q in got.get("publishListRuns") or ()]
            self.counter = step["sendIndex"]
            self.write_queue_nums = _write_queue_nums(step["route"])
        elif op == "update" and isinstance(got.get("item"), Mapping):
            self.table[step["broker"]] = got["item"]
        elif op in ("select", "tp_select"):
            if "storedIndexAfter" in got:  # the counter moved, even where the call then threw
                self.counter = got["storedIndexAfter"]
            for position, broker, queue_id in got.get("listMutated") or ():
                if 0 <= position < len(self.queues):
                    self.queues[position] = (broker, queue_id)
        if isinstance(got.get("tableAfter"), Mapping):
            self.table = dict(got["tableAfter"])


def _write_queue_nums(route: Mapping[str, Any]) -> dict[str, int]:
    return {name: count for name, count, _ in route["queueDatas"]}


#: what asks the strategy for further steps from the state a trace's steps left: their observations
Probe = Callable[[Sequence[Mapping[str, Any]]], Sequence[Any]]


def compare_trace(case: TraceCase, run: str, publish_list_got: Sequence[Sequence[Any]], observations: Iterator[Any],
                  probe: Probe | None = None) -> StepMismatch | None:
    """The first divergence of a trace's ``observations`` (one per step, in the vectors'
    vocabulary, made as they are read) from Java's answers of ``run``, or ``None``. ``probe``
    asks for the picks that judge a counter stored unlike Java's at the end (:class:`_Unshown`)."""
    return _first_divergence(case, run, publish_list_got, observations, [], probe)


def probe_steps(length: int) -> list[Mapping[str, Any]]:
    """The picks asked after a trace whose counter is stored unlike Java's yet should lead to
    Java's picks: one plain ``selectOneMessageQueue()`` per entry of the list."""
    return [{"op": "tp_select", "lastBroker": None}] * length


def _first_divergence(case: TraceCase, run: str, publish_list_got: Sequence[Sequence[Any]], observations: Iterator[Any],
                      seen: list[Any], probe: Probe | None = None) -> StepMismatch | None:
    """:func:`compare_trace`, with every observation read kept in ``seen``."""
    answers = case.answers_for(run)
    built = tuple(tuple(q) for q in publish_list_got)
    wanted = tuple(publish_list(answers.publish_list_runs))
    if built != wanted:
        return StepMismatch(case.id, run, -1, f"publish list {list(built)}, Java's {list(wanted)}", WRONG_QUEUES)
    java = _answers(answers)
    last = answers.nondeterministic_step
    release = _release_of(run, answers)
    ordered = release is None or release == _ORDERED
    unshown = _Unshown(release, case.initial["sendIndex"], built)

    def held(first: tuple[int, str, BaseException | None], shows: str = "") -> StepMismatch:
        """``first``, the first state difference :class:`_Unshown` holds, as the case's divergence."""
        at, problem, raised = first
        return StepMismatch(case.id, run, at, problem + shows, COUNTER_DRIFT, _rows(case, java, built, seen[: at + 1]), raised)

    for index, (step, got) in enumerate(zip(case.steps, observations)):
        seen.append(got)
        answer = java[index]
        if answer is None or _agrees(step, answer, got):
            found = None
        else:
            found = _step_problem(step, answer, got, ordered)
        before = unshown.first()
        unshown.take(index, step, answer or {}, got)
        if found is not None:
            if before is not None:  # a pick, or the state, shows a difference no pick had shown yet
                return held(before, f"; then step {index} differs: {found[0]}")
            now = unshown.first()
            if found[1] == COUNTER_DRIFT and now is not None:
                return held(now)  # the counter and the list are the first of a select's state
            raised = got.get("raised") if isinstance(got, Mapping) else None
            return StepMismatch(case.id, run, index, found[0], found[1], _rows(case, java, built, seen), raised)
        if last is not None and index >= last:
            break  # Java's later answers depend on which way its tie went
    # after the trace, Java's later picks read the counter's next values and every entry of the list
    left = unshown.first()
    if left is not None:
        return held(left)
    if unshown.doubt is None or release is None or not unshown.java_list:
        return None
    # a number unlike Java's whose next value by Java's rule is Java's: ask the picks it leads to
    shown = _probe_problem(release, case.topic, unshown, probe)
    return None if shown is None else held(unshown.doubt, shown)


class _Unshown:
    """What a trace's strategy holds unlike Java's, and no pick has shown yet: the stored
    counter and the publish list's entries, each followed through both sides' answers.

    A difference is held, not reported, until a pick shows it, or the trace ends (then Java's
    later picks would read it), and dropped when the two agree again first (a route makes a
    new list and counter; a set index stores one int in both). Two counters agree when they
    lead to the same picks at every later step (:func:`~.drift.takes_alike`: the low 31 bits
    Java reads, not the number stored), or, for no one known release, when they are one int."""

    def __init__(self, release: tuple[int, int, int] | None, counter: int | None, built: Sequence[tuple[str, int]]):
        self.release = release
        self.java_counter: Any = counter
        self.got_counter: Any = counter
        self.java_list = list(built)
        self.got_list = list(built)
        self.counter: tuple[int, str, BaseException | None] | None = None
        self.listed: tuple[int, str, BaseException | None] | None = None
        #: a counter stored unlike Java's whose next value, by Java's rule, is Java's
        self.doubt: tuple[int, str, BaseException | None] | None = None

    def first(self) -> tuple[int, str, BaseException | None] | None:
        """(step, problem, raised) of the first difference held, or ``None``."""
        held = [found for found in (self.counter, self.listed) if found is not None]
        return min(held, key=lambda found: found[0]) if held else None

    def take(self, index: int, step: Mapping[str, Any], answer: Mapping[str, Any], got: Any) -> None:
        """Follow both sides through ``step`` (Java's ``answer``, the strategy's ``got``)."""
        got = got if isinstance(got, Mapping) else {}
        op = step["op"]
        changed: Any = None
        if op == "route":
            java = answer.get("expect") or {}
            self.java_list = publish_list(java.get("publishListRuns") or ())
            self.got_list = [(q[0], q[1]) for q in got.get("publishListRuns") or ()]
            self.java_counter = self.got_counter = step["sendIndex"]
        elif op == "set_index":
            self.java_counter = self.got_counter = step["value"]
        elif op in ("select", "tp_select"):
            java = _javas(answer, got)
            if "storedIndexAfter" in java and "storedIndexAfter" in got:
                self.java_counter, self.got_counter = java["storedIndexAfter"], got["storedIndexAfter"]
            changed = java.get("listMutated") or got.get("listMutated")
            _mutate(self.java_list, java.get("listMutated"))
            _mutate(self.got_list, got.get("listMutated"))
        else:
            return
        if op != "route" and not changed and self.listed is None and self.counter is None and self.doubt is None \
                and _same(self.got_counter, self.java_counter):
            return  # the usual select: the same counter, no entry changed, nothing held
        raised = got.get("raised")
        if self._counters_alike():
            self.counter = None
            if _same(self.got_counter, self.java_counter):
                self.doubt = None
            elif self.doubt is None:
                self.doubt = (index, f"stored counter {self.got_counter!r}, Java's {self.java_counter}", raised)
        elif self.counter is None:
            note = "" if self.release is None or type(self.java_counter) is not int or type(self.got_counter) is not int else (
                f": {when_it_shows(self.release, self.java_counter, self.got_counter, self.java_list)}")
            self.counter = (index, f"stored counter {self.got_counter!r}, Java's {self.java_counter}{note}", raised)
        if self.got_list == self.java_list:
            self.listed = None
        elif self.listed is None:
            java = _javas(answer, got) if op != "route" else {}
            changed = got.get("listMutated") or []
            self.listed = (index, f"list entries changed {changed}, Java's {java.get('listMutated', [])}", raised)

    def _counters_alike(self) -> bool:
        java, got = self.java_counter, self.got_counter
        if self.release is None or type(java) is not int or type(got) is not int:
            return _same(got, java)
        return takes_alike(self.release, java, got, len(self.java_list))


def _probe_problem(release: tuple[int, int, int], topic: str, unshown: _Unshown, probe: Probe | None) -> str | None:
    """How the picks that a counter in doubt leads to differ from Java's (``None``: they do
    not): one plain pick per entry of the list, asked of the strategy (``probe``) and of the
    reference port from Java's counter and list; no ``probe``, or no answer, is a difference."""
    from pytest_rmq_conformance.ports.producer.publish_info import TopicPublishInfo

    steps = probe_steps(len(unshown.java_list))
    info = TopicPublishInfo([MessageQueue(topic, broker, queue_id) for broker, queue_id in unshown.java_list],
                            version=".".join(map(str, release)))
    info.send_which_queue.pin(unshown.java_counter)
    java = [info.select_one_message_queue(None) for _ in steps]
    if probe is None:
        return "; the picks it leads to were not asked"
    try:
        got = list(probe(steps))
    except Fault as fault:
        return f"; asked for {len(steps)} more picks, the strategy gave no answer: {fault.problem}"
    for k, (want, answer) in enumerate(zip(java, got)):
        queue = answer.get("queue") if isinstance(answer, Mapping) else None
        if not _same(queue, [want.broker_name, want.queue_id]):
            return (f"; the picks it leads to are not Java's: pick {k + 1} of {len(steps)} after the trace answers "
                    f"{_shown(queue)}, Java's {want.broker_name}/{want.queue_id}")
    if len(got) != len(steps):
        return f"; asked for {len(steps)} more picks, the strategy gave {len(got)}"
    return None


def _javas(answer: Mapping[str, Any], got: Mapping[str, Any]) -> Mapping[str, Any]:
    """Java's outcome of a select: its one answer, or of a tie the one ``got`` agrees with."""
    if "expectOneOf" not in answer:
        return answer.get("expect") or {}
    ties = answer["expectOneOf"]
    return next((java for java in ties if _select_problem(java, got, True) is None), ties[0])


def _mutate(queues: list[tuple[str, int]], changed: Any) -> None:
    """Apply a select's ``listMutated`` (``[[position, broker, queueId], ...]``) to ``queues``."""
    for entry in changed or ():
        if isinstance(entry, (list, tuple)) and len(entry) == 3 and type(entry[0]) is int and 0 <= entry[0] < len(queues):
            queues[entry[0]] = (entry[1], entry[2])


#: the one release whose ``pickOneAtLeast`` reads the fault table's order (4.7.1 shuffles it first)
_ORDERED = (4, 9, 8)


def _release_of(run: str, answers: Answers) -> tuple[int, int, int] | None:
    """The release of the ports whose answers ``run`` names: the one they reproduce the run's
    release as, else (a generated case, or a release they reproduce as none) the one release
    they reproduce the group's runs as; ``None`` for no one known release."""
    for names in ([run], answers.runs):
        found = set()
        for name in names:
            try:
                found.add(producer_release(name))
            except ValueError:  # not a release, or one the ports reproduce as none
                continue
        if found:
            return found.pop() if len(found) == 1 else None
    return None


def _answers(answers: Answers) -> tuple[Any, ...]:
    """A group's step answers as a tuple (parsed once, when they are kept as text)."""
    java = answers.answers
    if isinstance(java, StepAnswers):
        return java.decoded()
    return java if isinstance(java, tuple) else tuple(java)


def _agrees(step: Mapping[str, Any], answer: Any, got: Any) -> bool:
    """Whether ``got`` is, for sure, what a select answered as Java did in ``answer``, checked
    fast: the usual answer (a queue, no exception, no list change, no table change) with
    values of the very types Java's have. ``False`` leaves it to :func:`_step_problem`, which
    says whether and how it differs."""
    if type(answer) is not dict or type(got) is not dict or "expectOneOf" in answer or step["op"] not in ("select", "tp_select"):
        return False
    java = answer.get("expect")
    if type(java) is not dict or "error" in java or "tableAfter" in java or got.get("raised") is not None or got.get("tableAfter") is not None:
        return False
    mutated = java.get("listMutated", _NONE_MUTATED)
    if type(mutated) is not list or mutated or got.get("listMutated"):
        return False
    queue, java_queue = got.get("queue"), java["queue"]
    if java_queue is None:
        if queue is not None:
            return False
    elif (type(queue) is not list or type(java_queue) is not list or len(java_queue) != 2 or queue != java_queue
          or type(java_queue[0]) is not str or type(queue[1]) is not int or type(java_queue[1]) is not int):
        return False
    worst = got.get("worstIndexAfter")
    return (_same_number(got.get("storedIndexAfter"), java.get("storedIndexAfter"))
            and (worst is None or "worstIndexAfter" not in java or _same_number(worst, java["worstIndexAfter"])))


#: what a select's answer without ``listMutated`` stands for
_NONE_MUTATED: list[Any] = []


def _same_number(got: Any, java: Any) -> bool:
    """Both ``None``, or the same ``int`` (no ``bool``, no ``float``)."""
    return got is None if java is None else type(java) is int and type(got) is int and got == java


def _rows(case: TraceCase, java: Sequence[Any], built: Sequence[Sequence[Any]], seen: Sequence[Any]) -> tuple[Row, ...]:
    """The report's table of the steps in ``seen``: the state before each, as the observations
    before it tell it, and what Java (``java``, its answers) and the strategy answered."""
    state = ObservedState(case, built)
    rows = []
    for index, (step, got) in enumerate(zip(case.steps, seen)):
        rows.append(Row(index, step, *state.snapshot(), java[index], got))
        state.observe(step, got)
    return tuple(rows)


def _played(build: Callable[[TraceClock], Any], case: TraceCase, timeout: float | None) -> tuple[tuple[tuple[str, int], ...], _Trace]:
    """The strategy ``build(clock)`` makes, configured and given the case's route: the publish
    list built, and the trace ready for its first step."""
    clock = TraceClock(case.initial["clockMs"])
    strategy, raised = answer_of(lambda: build(clock), timeout)
    if raised is not None:
        raise Fault(f"the strategy could not be built: {type(raised).__name__}: {raised}", raised)
    trace = _Trace(case, strategy, clock, timeout)
    trace.configure(case.params, case.initial)
    built = trace.install(case.route, case.initial["sendIndex"], case.initial["sendIndexSeed"])
    return built, trace


def observe_trace(build: Callable[[TraceClock], Any], case: TraceCase, timeout: float | None = None) -> tuple[tuple[tuple[str, int], ...], Iterator[Any]]:
    """Play ``case`` against the strategy ``build(clock)`` makes, in this process: the publish
    list built from the route, and an iterator that takes one step per item and yields what was
    observed (:class:`Fault` raised for what no answer stands for)."""
    built, trace = _played(build, case, timeout)
    return built, map(trace.play, case.steps)


def replay_trace(build: Callable[[TraceClock], Any], case: TraceCase, run: str, timeout: float | None = None) -> StepMismatch | None:
    """Play ``case`` against the strategy ``build(clock)`` makes, in this process; its first
    divergence from Java's answers of ``run``, or ``None``."""
    seen: list[Any] = []
    try:
        with time_limits():  # one handler for the trace's calls, each still with its own limit
            built, trace = _played(build, case, timeout)
            return _first_divergence(case, run, built, map(trace.play, case.steps), seen, lambda steps: [trace.play(step) for step in steps])
    except Fault as fault:
        return StepMismatch(case.id, run, len(seen), fault.problem, FAULT, raised=fault.raised)


def _selector_answers(build: Callable[[], Any], case: SelectorCase, timeout: float | None) -> Iterator[Any]:
    """One answer per queue count of ``case``, asked as it is read (see :func:`observe_selector`)."""
    arg = selector_arg(case.arg)
    selector, raised = answer_of(build, timeout)
    if raised is not None:
        raise Fault(f"the selector could not be built: {type(raised).__name__}: {raised}", raised)
    for count in case.queue_counts:
        mqs: Sequence[MessageQueue] = list(_queues(count)) if count <= _REAL_LIST else _Queues(count)
        got, raised = answer_of(partial(selector.select, mqs, None, arg), timeout)
        yield raised if raised is not None else _position(got, count)


def observe_selector(build: Callable[[], Any], case: SelectorCase, timeout: float | None = None) -> list[Any]:
    """Call the selector ``build()`` makes once per queue count of ``case``: per call, the
    position of the queue returned in the list given (``None``: not an element), or what it
    raised (:class:`Fault` raised for what no answer stands for)."""
    return list(_selector_answers(build, case, timeout))


@dataclass(frozen=True)
class SelectorMismatch(StepMismatch):
    """A selector case's worst call (``index``, the first call of the worst class) and every
    call that differs from Java's, as ``(call, class, problem)``."""

    calls: tuple[tuple[int, str, str], ...] = field(default=(), compare=False)


def _call_divergence(count: int, java: Any, got: Any) -> tuple[str, str] | None:
    """(problem, class) when a selector's answer ``got`` for a list of ``count`` differs from Java's ``java``."""
    if isinstance(got, NotRun):  # not made: the case is reported as not run unless another call diverges
        return None
    raised = got if isinstance(got, BaseException) else None
    if isinstance(java, Mapping):
        problem = _error_problem(java, raised, "select")
        return None if problem is None else (f"n={count}: {problem}", ERROR_BEHAVIOUR)
    if raised is not None:
        return f"n={count}: Java returned queue {java}, but select raised {type(raised).__name__}: {raised}", WRONG_QUEUES
    if got != java:
        shown = "not a queue of the list" if got is None else f"queue {got}"
        return f"n={count}: {shown}, Java's queue {java}", WRONG_QUEUES
    return None


def compare_selector(case: SelectorCase, run: str, answers: Sequence[Any], fault: Fault | None = None) -> SelectorMismatch | None:
    """The worst of a selector's ``answers`` (positions or exceptions; ``fault``: what ended them
    early) that differs from Java's answers of ``run``, or ``None``. Its calls are independent,
    so the case takes its worst call's class (:data:`~pytest_rmq_conformance.engine.divergence.SEVERITY`)."""
    found: list[tuple[int, str, str, BaseException | None]] = []
    for index, (count, java, got) in enumerate(zip(case.queue_counts, case.answers_for(run).answers, answers)):
        divergence = _call_divergence(count, java, got)
        if divergence is not None:
            found.append((index, divergence[1], divergence[0], got if isinstance(got, BaseException) else None))
    if fault is not None:
        found.append((len(answers), FAULT, fault.problem, fault.raised))
    if not found:
        return None
    deciding = worst_class(divergence_class for _, divergence_class, _, _ in found)
    index, divergence_class, problem, raised = next(call for call in found if call[1] == deciding)
    calls = tuple((call, cls, shown) for call, cls, shown, _ in found)
    return SelectorMismatch(case.id, run, index, problem, divergence_class, raised=raised, calls=calls)


def replay_selector(build: Callable[[], Any], case: SelectorCase, run: str, timeout: float | None = None) -> SelectorMismatch | None:
    """Call the selector ``build()`` makes once per queue count of ``case``, in this process;
    its worst divergence from Java's answers of ``run`` (a hang or an exit ends the calls), or ``None``."""
    answers: list[Any] = []
    try:
        with time_limits():
            for got in _selector_answers(build, case, timeout):
                answers.append(got)  # noqa: PERF402 (those before a fault are judged too)
    except Fault as fault:
        return compare_selector(case, run, answers, fault)
    return compare_selector(case, run, answers)


@lru_cache(maxsize=64)
def _queues(count: int) -> tuple[MessageQueue, ...]:
    """``TopicTest/broker-a/0 .. count-1`` (a fresh list of them is handed to every call)."""
    return tuple(MessageQueue("TopicTest", "broker-a", i) for i in range(count))


#: longer lists are made on access, as Java's harness made its lists of more than 65,536 queues
_REAL_LIST = 65536


class _Queues(Sequence[MessageQueue]):
    """``TopicTest/broker-a/0 .. n-1``, made on access (a list may be 2^30 long)."""

    def __init__(self, count: int):
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if not -self._count <= index < self._count:
            raise IndexError(f"Index {index} out of bounds for length {self._count}")
        return MessageQueue("TopicTest", "broker-a", index % self._count)



def _position(queue: Any, count: int) -> int | None:
    """Where ``queue`` stands in the list ``TopicTest/broker-a/0 .. count-1`` (``None``: not in it)."""
    ok = type(queue) is MessageQueue and queue.topic == "TopicTest" and queue.broker_name == "broker-a"
    return queue.queue_id if ok and 0 <= queue.queue_id < count else None
