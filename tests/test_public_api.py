"""One public API: ``pytest_rmq_conformance``'s top level names everything the documentation
imports, and this list holds it, so that no name the docs use can move or vanish unnoticed."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest
from docs_pages import ROOT, pages

import pytest_rmq_conformance

PUBLIC = [
    "AllocateMachineRoomNearby",
    "AllocateMessageQueueAveragely",
    "AllocateMessageQueueAveragelyByCircle",
    "AllocateMessageQueueByConfig",
    "AllocateMessageQueueByMachineRoom",
    "AllocateMessageQueueConsistentHash",
    "AllocateMessageQueueStrategy",
    "AllocationFamily",
    "AtomicIndex",
    "BrokerData",
    "CaseOutcome",
    "ClientConfig",
    "Clock",
    "Consumption",
    "Counter",
    "DEFAULT_RELEASE",
    "Detecting",
    "Event",
    "ExampleClock",
    "Family",
    "FaultItem",
    "FaultStrategies",
    "FaultStrategy",
    "GeneratedCheck",
    "GoldenCases",
    "GroupSimulation",
    "Groups",
    "GrpcBroker",
    "GrpcEndpoints",
    "GrpcMessageQueue",
    "HashRing",
    "INT_MAX",
    "INT_MIN",
    "JavaConcurrentHashMap",
    "JavaInteger",
    "JavaLong",
    "JavaRandom",
    "Kind",
    "LONG_MAX",
    "LONG_MIN",
    "LatencyFaultToleranceImpl",
    "LockBroker",
    "MASTER_ID",
    "MQFaultStrategy",
    "MachineRoomResolver",
    "ManualClock",
    "MapMachineRoomResolver",
    "Message",
    "MessageFlow",
    "MessageGroupBalancer",
    "MessageQueue",
    "OwnershipLedger",
    "PARTITION",
    "PERM_WRITE",
    "Plan",
    "ProcessQueue",
    "PublishInfo",
    "PublishingLoadBalancer",
    "PullRequest",
    "QueueData",
    "RELEASES",
    "RebalanceLitePullImpl",
    "RebalanceLockManager",
    "RebalancePullImpl",
    "RebalancePushImpl",
    "RebalanceLockManager",
    "Scenario",
    "SelectMessageQueueByHash",
    "SelectMessageQueueByRandom",
    "Selector",
    "SendOutcome",
    "SimulatedRoute",
    "SplitMachineRoomResolver",
    "Subject",
    "SubscriptionLoadBalancer",
    "ThreadLocalIndex",
    "TopicPublishInfo",
    "TopicRouteData",
    "__version__",
    "assign",
    "get_kind",
    "guava_mod",
    "hookspecs",
    "java_abs",
    "java_get_bytes",
    "java_hash_code",
    "java_int",
    "java_list_get",
    "java_long",
    "java_rem",
    "java_sort",
    "java_sorted",
    "java_sorted_queues",
    "java_sorted_strings",
    "java_split",
    "java_string_compare",
    "java_string_hash",
    "java_string_key",
    "kind_of",
    "mask31",
    "md5_hash",
    "message_group_index",
    "reference_strategy",
    "register_family",
    "register_kind",
    "sip_hash24",
    "topic_route_data_to_topic_publish_info",
    "unregister_family",
]

IMPORT = re.compile(
    r"^\s*(?:from\s+(pytest_rmq_conformance[\w.]*)\s+import\s+([^#\n]+)|import\s+(pytest_rmq_conformance[\w.]*))",
    re.MULTILINE,
)


def test_the_public_names_are_the_held_list():
    assert sorted(pytest_rmq_conformance.__all__) == sorted(set(PUBLIC)), (
        "update PUBLIC here only with the docs that use the name"
    )


@pytest.mark.parametrize("name", sorted(set(PUBLIC)))
def test_every_public_name_imports_from_the_top_level(name):
    namespace: dict = {}
    exec(f"from pytest_rmq_conformance import {name}", namespace)
    assert namespace[name] is not None
    assert name in dir(pytest_rmq_conformance)


def test_a_name_that_is_not_public_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="has no attribute 'reference_strategyy'"):
        pytest_rmq_conformance.reference_strategyy  # noqa: B018


def documented_code() -> list[tuple[str, str]]:
    """``(where, code)``: the Python blocks of every page, the examples, and the docstrings the
    reference shows (hook specs and fixtures)."""
    found = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        blocks = re.finditer(r"^```python[^\n]*\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
        found += [(f"{page.relative_to(ROOT)}:{text[: block.start()].count(chr(10)) + 1}", block.group(1)) for block in blocks]
    found += [(str(example.relative_to(ROOT)), example.read_text(encoding="utf-8")) for example in sorted((ROOT / "examples").rglob("*.py"))]
    for module in ("plugin.hookspecs", "plugin.fixtures", "plugin.producer_fixtures", "processqueue.fixtures"):
        source = importlib.import_module(f"pytest_rmq_conformance.{module}")
        tree = ast.parse(Path(source.__file__).read_text(encoding="utf-8"))
        functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
        found += [(f"{module}.{node.name} (docstring)", doc) for node in functions if (doc := ast.get_docstring(node))]
    return found


def test_the_docs_import_only_public_names_from_the_top_level():
    wrong = []
    for where, code in documented_code():
        for found in IMPORT.finditer(code):
            module = found.group(1) or found.group(3)
            if module != "pytest_rmq_conformance" or found.group(3):
                wrong.append(f"{where}: {found.group(0).strip()} (import from pytest_rmq_conformance itself)")
                continue
            names = [name.strip().split(" as ")[0] for name in found.group(2).strip("() \n").split(",") if name.strip()]
            wrong += [f"{where}: {name} is not public" for name in names if name not in PUBLIC]
    assert not wrong, "\n".join(wrong)


def test_the_import_reader_sees_internal_paths():
    """The check above is able to fail."""
    code = "from pytest_rmq_conformance.engine.kinds import reference_strategy\nimport pytest_rmq_conformance.model\n"
    assert [m.group(1) or m.group(3) for m in IMPORT.finditer(code)] == [
        "pytest_rmq_conformance.engine.kinds",
        "pytest_rmq_conformance.model",
    ]


def test_every_internal_module_says_it_is_internal():
    package = Path(pytest_rmq_conformance.__file__).parent
    silent = []
    for path in sorted(package.rglob("*.py")):
        if path == package / "__init__.py" or "suite" in path.relative_to(package).parts:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if "internal" not in doc.lower():
            silent.append(str(path.relative_to(package)))
    assert not silent, f"{len(silent)} modules whose docstring does not say they are internal: {silent}"
