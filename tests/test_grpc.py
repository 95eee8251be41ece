"""The 5.x gRPC clients' balancers: SipHash against its reference vectors, the ports exact on
every vector, the built-ins through the plugin, and every mutant rejected by the check that
should catch it."""

import json
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to 3.10
    import tomli as tomllib
from collections import Counter
from pathlib import Path

import grpc_mutants
import pytest
from docs_pages import block_after

from pytest_rmq_conformance.engine.divergence import COUNTER_DRIFT, ERROR_BEHAVIOUR, FAULT, WRONG_QUEUES
from pytest_rmq_conformance.engine.golden.data import load_golden, read_cases
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.javalang import INT_MAX, INT_MIN, guava_mod, java_get_bytes, sip_hash24
from pytest_rmq_conformance.kinds.grpc.families import PORTS
from pytest_rmq_conformance.kinds.grpc.play import replay
from pytest_rmq_conformance.ports.grpc import AtomicIndex, PublishingLoadBalancer, message_group_index
from pytest_rmq_conformance.ports.grpc.route import route_from_json

Q = ["-p", "no:cacheprovider", "--rmq-checks=golden"]
GOLDEN = load_golden(golden_dir() / "grpc", validate=False)  # validated in full by test_the_shipped_cases_match_their_schema
RUN = list(GOLDEN.runs)[-1]  # the newest client version: every case has its answer
FAMILIES = tuple(PORTS)
SIPHASH_VECTORS = [bytes.fromhex("".join(line.split()))
                   for line in (Path(__file__).parent / "data" / "siphash24-reference.txt").read_text().splitlines()
                   if line and not line.startswith("#")]


@pytest.mark.once
def test_the_shipped_cases_match_their_schema():
    validated = load_golden(golden_dir() / "grpc", validate=True)  # every line and the manifest, against their schemas
    assert validated.cases == GOLDEN.cases and len(validated.cases) == 3611


def test_siphash_gives_every_reference_vector():
    assert len(SIPHASH_VECTORS) == 64
    for length, digest in enumerate(SIPHASH_VECTORS):
        assert sip_hash24(bytes(range(length))) == int.from_bytes(digest, "little", signed=True), length


def test_guava_mod_is_never_negative_and_refuses_a_modulus_below_one():
    assert guava_mod(-7, 3) == 2 and guava_mod(7, 3) == 1 and guava_mod(-(2**63), 3) == 1 and guava_mod(INT_MIN, 7) == 5
    with pytest.raises(ValueError, match="Modulus must be positive"):
        guava_mod(5, 0)


def test_java_utf8_writes_a_lone_surrogate_as_a_question_mark_and_joins_a_pair():
    assert java_get_bytes("a\ud800b", "UTF-8") == b"a?b"
    assert java_get_bytes("\ud83d\ude00", "UTF-8") == "\U0001F600".encode() == bytes.fromhex("f09f9880")
    assert java_get_bytes("\ude00\ud83d", "UTF-8") == b"??"


def test_the_group_index_of_the_empty_group():
    """Java's sipHash24 of no bytes is 8246050544436514353, which is odd."""
    assert sip_hash24(b"") == 8246050544436514353
    assert [message_group_index("", k) for k in (1, 2, 3)] == [0, 1, 8246050544436514353 % 3]


def test_the_index_wraps_like_javas_int():
    index = AtomicIndex(INT_MAX)
    assert [index.get_and_increment() for _ in range(2)] == [INT_MAX, INT_MIN] and index.value == INT_MIN + 1


def test_a_route_with_nothing_writable_is_refused_with_javas_message():
    broker = {"name": "broker-a", "id": 0, "endpoints": {"scheme": "IPv4", "addresses": [["10.0.0.1", 8081]]}}
    route = route_from_json([{"queueId": 0, "permission": "READ", "broker": broker}])
    with pytest.raises(ValueError, match=r"^No writable message queue found, topiRouteData=TopicRouteData\{messageQueueImpls=\[broker-a\.TopicTest\.0\]\}$"):
        PublishingLoadBalancer(route, 0)


@pytest.mark.once
@pytest.mark.parametrize("family", FAMILIES)
def test_every_port_reproduces_every_vector(family):
    cases = GOLDEN.by_strategy(family)
    port = PORTS[family]
    mismatches = [replay(lambda route, index: port(route=route, index=index), case, RUN) for case in cases]
    assert len(cases) >= 600
    assert [m for m in mismatches if m is not None] == []


#: mutant -> (family, the class of divergence the golden check finds)
MUTANTS = {
    "UnsignedModulo": ("GROUP_HASH", WRONG_QUEUES),
    "BigEndianHash": ("GROUP_HASH", WRONG_QUEUES),
    "CodePoints": ("GROUP_HASH", WRONG_QUEUES),
    "PassThroughSurrogates": ("GROUP_HASH", WRONG_QUEUES),
    "TruncatedMod": ("GROUP_HASH", WRONG_QUEUES),
    "PythonHash": ("GROUP_HASH", WRONG_QUEUES),
    "KeepsSlaves": ("PUBLISH_ROUND_ROBIN", WRONG_QUEUES),
    "ExcludesByAddressSet": ("PUBLISH_ROUND_ROBIN", WRONG_QUEUES),
    "NoFallback": ("PUBLISH_ROUND_ROBIN", WRONG_QUEUES),
    "OneQueuePerCall": ("PUBLISH_ROUND_ROBIN", COUNTER_DRIFT),
    "NoIntWrap": ("SUBSCRIBE_ROUND_ROBIN", WRONG_QUEUES),
    "IncrementFirst": ("SUBSCRIBE_ROUND_ROBIN", WRONG_QUEUES),
    "WanderingOffset": ("SUBSCRIBE_ROUND_ROBIN", WRONG_QUEUES),
    "NoErrorWhenEmpty": ("SUBSCRIBE_ROUND_ROBIN", ERROR_BEHAVIOUR),
    "NewIndexOnUpdate": ("SUBSCRIBE_ROUND_ROBIN", WRONG_QUEUES),
    "CopiesQueues": ("SUBSCRIBE_ROUND_ROBIN", WRONG_QUEUES),
    "NeverWraps": ("SUBSCRIBE_ROUND_ROBIN", COUNTER_DRIFT),
    "AddressesInAnyOrder": ("PUBLISH_ROUND_ROBIN", WRONG_QUEUES),
}

#: twins of the reference port that differ from it only in what Java cannot observe -> their family
PASSING_TWINS = {
    "IncrementFirstDeclared": "SUBSCRIBE_ROUND_ROBIN",  # its counter, read back less its declared offset, is Java's int
    "Int32IncrementFirst": "SUBSCRIBE_ROUND_ROBIN",  # an int32 one behind Java's: 2^31 - 1 where Java's is -2^31, Java's takes
    "Int32IncrementFirstPublishing": "PUBLISH_ROUND_ROBIN",
    "EqualCopies": "SUBSCRIBE_ROUND_ROBIN",  # an equal copy of the route's queue, not the object itself
    "ExcludedInAnotherOrder": "PUBLISH_ROUND_ROBIN",  # the excluded endpoints in another order
}


@pytest.mark.once
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_every_mutant_is_rejected_by_the_check_that_should_catch_it(name):
    family, divergence_class = MUTANTS[name]
    mutant = getattr(grpc_mutants, name)
    offset = getattr(mutant, "rmq_index_offset", 0)
    found = [m for m in (replay(lambda route, index: mutant(route=route, index=index), case, RUN, offset)
                         for case in GOLDEN.by_strategy(family)) if m is not None]
    assert found, f"{name} passed every {family} vector"
    assert divergence_class in Counter(m.divergence_class for m in found)
    assert FAULT not in Counter(m.divergence_class for m in found), [m for m in found if m.divergence_class == FAULT][:1]


#: mutant -> the generated check (--rmq-checks part, test) that must catch it, and the words of its report
GENERATED_MUTANTS = {
    "PythonHash": ("invariants", "one-answer", ("*breaks one-answer*", "*from another process, PYTHONHASHSEED=*")),
    "OutOfRoute": ("invariants", "in-range", ("*breaks in-range*",)),
    "Lopsided": ("invariants", "spread", ("*breaks spread*", "*chi-square * > *")),
    "TwoPerBroker": ("invariants", "one-per-broker", ("*breaks one-per-broker*",)),
    "IgnoresExcluded": ("invariants", "avoids-excluded", ("*breaks avoids-excluded*",)),
    "TakesOne": ("invariants", "takes-enough", ("*breaks takes-enough*",)),
    "SkipsTheFirst": ("invariants", "covers-queues", ("*breaks covers-queues*",)),
    "NoIntWrap": ("invariants", "index-wraps", ("*breaks index-wraps*", "*Java's int gives*")),
    "UnsignedModulo": ("reference", "test_matches_reference", ("*differs from the reference port on a generated group*",)),
    "KeepsSlaves": ("reference", "test_matches_reference", ("*differs from the reference port on a generated case*",)),
}


def test_every_mutant_is_named_in_a_table():
    defined = {name for name, value in vars(grpc_mutants).items() if isinstance(value, type) and not name.startswith("_")
               and value.__module__ == grpc_mutants.__name__}
    assert defined - set(PASSING_TWINS) == set(MUTANTS) | set(GENERATED_MUTANTS)


def _play(name, case_id):
    balancer = getattr(grpc_mutants, name)
    (case,) = [case for case in GOLDEN.cases if case.id == case_id]
    return replay(lambda route, index: balancer(route=route, index=index), case, RUN, getattr(balancer, "rmq_index_offset", 0))


@pytest.mark.once
@pytest.mark.parametrize("name", sorted(PASSING_TWINS))
def test_a_twin_that_differs_only_in_what_java_cannot_observe_passes_every_vector(name):
    twin = getattr(grpc_mutants, name)
    offset = getattr(twin, "rmq_index_offset", 0)
    cases = GOLDEN.by_strategy(PASSING_TWINS[name])
    assert [m for m in (replay(lambda route, index: twin(route=route, index=index), case, RUN, offset) for case in cases) if m] == []


def test_a_counter_equal_to_javas_only_modulo_2_32_is_counter_drift_shown_by_a_probe_take():
    """Java's counter has wrapped to -2^31; a never-wrapping one, declared one behind, stands at
    2^31 - 1 and next reads 2^31: the first probe, a take on 13 queues, answers 2^31 mod 13 = 11
    where Java's IntMath.mod(-2^31, 13) = 2."""
    case_id = "grpc-pub-SUBSCRIBE_ROUND_ROBIN-0130-near-int-max"
    drift = _play("NeverWraps", case_id)
    assert drift is not None and drift.divergence_class == COUNTER_DRIFT and drift.step == 3
    assert drift.problem == ("probe 1 of 8 after the steps, the take on 13 queues: queue 11, Java's queue 2; after the steps "
                             "the index reads back 2147483648 (its 2147483647 less its offset -1), Java's -2147483648")


@pytest.mark.parametrize("name", ["Int32IncrementFirst", "Int32IncrementFirstPublishing"])
def test_an_int32_that_increments_before_it_reads_passes_where_it_stores_what_java_never_holds(name):
    """Go's atomic.Int32.Inc(), declared one behind Java's: where Java's counter has wrapped to
    -2^31 it stores 2^31 - 1 (no int holds Java's less one), yet every later take is Java's. Its
    stored number, read back less its offset, is 2^31 after the steps of every case ending there;
    the probe takes pass it, and the never-wrapping counter in the same place fails."""
    family = grpc_mutants.__dict__[name].__mro__[1].name
    at_the_end = [case for case in GOLDEN.by_strategy(family) if case.answers_for(RUN).get("indexAfter") == INT_MIN]
    assert len(at_the_end) >= 2
    assert [_play(name, case.id) for case in at_the_end] == [None] * len(at_the_end)
    if family == "SUBSCRIBE_ROUND_ROBIN":
        assert all(_play("NeverWraps", case.id) is not None for case in at_the_end)
    from pytest_rmq_conformance.kinds.grpc.play import observe

    twin = grpc_mutants.__dict__[name]
    seen = observe(lambda route, index: twin(route=route, index=index), at_the_end[0], -1, probe=False)
    assert seen["indexAfter"] == 2**31  # its 2^31 - 1 less its offset: the number today's rule refused


def test_probe_sizes_tell_apart_every_counter_that_a_later_take_can_tell_apart():
    """The probes pass a distance d from Java's reads only if every size divides it: odd sizes
    (no power of two, 2^32 and 2^64 included, is a multiple) whose lcm exceeds 2^35."""
    import math

    from pytest_rmq_conformance.kinds.grpc.probes import SIZES

    assert all(n % 2 for n in SIZES) and math.lcm(*SIZES) > 2**35
    passed = [d for d in (1, -1, 2**31, 2**32, -(2**32), 2**33 + 7, 2**64, 3 * 5 * 7 * 2**32) if all(d % n == 0 for n in SIZES)]
    assert passed == []


def test_a_counter_drift_that_the_next_take_hides_says_where_it_shows():
    from pytest_rmq_conformance.kinds.grpc.play import counter_drift

    java = {"filtered": [0, 1, 2, 3], "steps": [{"queue": 1}, {"filtered": [0, 2]}], "indexAfter": 5}
    assert counter_drift(java, 9) == ("index 9 after the steps, Java's 5: a different int; the next take on this route (2 kept) "
                                      "agrees (queue 2); they first part on a route of 3 kept queues")


def test_an_equal_copy_of_a_route_entry_is_the_same_answer_and_another_queue_is_not():
    alike = "grpc-pub-SUBSCRIBE_ROUND_ROBIN-0294-small"  # its route holds two equal entries
    (case,) = [case for case in GOLDEN.cases if case.id == alike]
    assert len({json.dumps(q, sort_keys=True) for q in case.route}) < len(case.route)
    assert _play("EqualCopies", alike) is None
    assert _play("CopiesQueues", alike).divergence_class == WRONG_QUEUES


def test_excluded_endpoints_are_a_set_of_address_lists_in_order():
    """Java's excluded endpoints are a HashSet (order unread); Endpoints.equals reads the addresses in order."""
    reordered = [case for case in GOLDEN.by_strategy("PUBLISH_ROUND_ROBIN") if "excluded-reordered-addresses" in case.flags]
    caught = [m for m in (_play("AddressesInAnyOrder", case.id) for case in reordered) if m is not None]
    assert caught and {m.divergence_class for m in caught} == {WRONG_QUEUES}
    several = [case for case in reordered if any(len(step.get("excluded", ())) > 1 for step in case.steps)]
    assert several and [_play("ExcludedInAnotherOrder", case.id) for case in several] == [None] * len(several)


@pytest.mark.once
@pytest.mark.parametrize("name", sorted(GENERATED_MUTANTS))
def test_every_generated_check_can_fail(mutants, name):
    part, check, words = GENERATED_MUTANTS[name]
    result = mutants.runpytest("-p", "no:cacheprovider", f"--rmq-checks={part}", f"--rmq-strategy=grpc_mutants:{name}", "-k", check)
    assert result.ret == 1, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(list(words))


@pytest.fixture
def mutants(pytester):
    pytester.makepyfile(grpc_mutants=(Path(__file__).with_name("grpc_mutants.py")).read_text())
    pytester.syspathinsert()
    return pytester


@pytest.mark.cross_product
@pytest.mark.parametrize("family", FAMILIES)
def test_the_built_in_names_pass_through_the_plugin(pytester, family):
    result = pytester.runpytest(*Q, f"--rmq-strategy={family}")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == len(GOLDEN.by_strategy(family))
    result.stdout.fnmatch_lines(["*answers compared call by call*"])


def test_a_declared_index_offset_is_honoured_and_an_undeclared_one_fails(mutants):
    declared = mutants.runpytest(*Q, "--rmq-strategy=grpc_mutants:IncrementFirstDeclared")
    assert declared.ret == 0, declared.stdout.str()
    undeclared = mutants.runpytest(*Q, "--rmq-strategy=grpc_mutants:IncrementFirst", "-x")
    assert undeclared.ret == 1


def test_a_group_failure_shows_the_bytes_and_javas_hash(mutants):
    result = mutants.runpytest(*Q, "--rmq-strategy=grpc_mutants:UnsignedModulo", "-x")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "*(GROUP_HASH, rocketmq-client-java 5.2.0): queue *, Java's queue *",
        "*group '*' (* characters), * queues",
        "*UTF-8 as Java encodes it (* bytes): *",
        "*Java: sipHash24 = -*, LongMath.mod(hash, *) = queue *",
        "*rerun: pytest --rmq-strategy=grpc_mutants:UnsignedModulo*--rmq-case=grpc-pub-GROUP_HASH-*",
    ])


def test_a_round_robin_failure_shows_the_route_and_the_steps_up_to_it(mutants):
    result = mutants.runpytest(*Q, "--rmq-strategy=grpc_mutants:KeepsSlaves", "-x")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*filtered [[]*[]], Java's [[]*[]]", "*route: 0:broker-a/0(READ_WRITE)*", "*index at start: *; Java kept*"])


def test_a_balancer_that_keeps_hanging_is_given_up_after_the_hang_budget(pytester):
    pytester.makepyfile(spins="""
from pytest_rmq_conformance.ports.grpc import MessageGroupBalancer

class Spins(MessageGroupBalancer):
    def take_message_queue_by_message_group(self, group):
        if group:
            while True:
                pass
        return super().take_message_queue_by_message_group(group)
""")
    pytester.syspathinsert()
    # the limit is the test's own: 1 s is far beyond what an honest take needs, even on a loaded machine
    result = pytester.runpytest(*Q, "--rmq-strategy=spins:Spins", "--rmq-timeout=1", "--rmq-max-hangs=2", "-k", "GROUP_HASH-00")
    assert result.ret == 1
    text = result.stdout.str()
    assert text.count("take_message_queue_by_message_group did not return: took longer than 1 s (--rmq-timeout)") == 2
    result.stdout.fnmatch_lines(["*30 x the strategy already overran the per-call limit * times (--rmq-max-hangs=*); not called again"])
    assert result.parseoutcomes() == {"failed": 32, "passed": 68, "deselected": 1711}  # the first 68 cases' group is ""


def test_a_balancer_without_the_familys_methods_is_a_usage_error(pytester):
    pytester.makepyfile(half="class Half:\n    name = 'PUBLISH_ROUND_ROBIN'\n    def __init__(self, route=None, index=None):\n        pass\n"
                             "    def take_message_queue_by_message_group(self, group):\n        return None\n")
    pytester.syspathinsert()
    result = pytester.runpytest(*Q, "--rmq-strategy=half:Half")
    assert result.ret == 4
    assert "the PUBLISH_ROUND_ROBIN balancer has no take_message_queues(), update()" in result.stderr.str()


@pytest.mark.once
def test_the_readme_balancer_passes_and_its_unsigned_variant_fails_as_the_readme_says(pytester):
    mine = block_after("A group router of your own, in\n`mybalancer.py`:", "python")
    unsigned = mine.replace("return self.message_queues[signed % len(self.message_queues)]",
                            "return self.message_queues[unsigned % len(self.message_queues)]")
    assert unsigned != mine
    pytester.makepyfile(mybalancer=mine, unsignedbalancer=unsigned)
    pytester.syspathinsert()
    ok = pytester.runpytest(*Q, "--rmq-strategy=mybalancer:MyBalancer")
    assert ok.ret == 0 and ok.parseoutcomes()["passed"] == 1811, ok.stdout.str()[-2000:]
    wrong = pytester.runpytest(*Q, "--rmq-strategy=unsignedbalancer:MyBalancer", "--rmq-case=grpc-pub-GROUP_HASH-0206-ascii")
    printed = wrong.stdout.str()
    shown = block_after("Its rerun line shows one of them:", "console exit=1").splitlines()
    report = [line for line in shown if line.startswith(("grpc-pub-", "    "))]
    assert len(report) == 4
    for line in report:
        assert line in printed, line
    every = pytester.runpytest(*Q, "--rmq-strategy=unsignedbalancer:MyBalancer")
    assert every.parseoutcomes()["failed"] == 727



def test_the_committed_clients_report_judges_each_client_at_its_pinned_version():
    """docs/clients.json (regenerated by tox -e clients, which .ci/run checks) holds each client of
    clients/versions.toml at its pin; the README's table is held to it in test_clients_report.py."""
    root = Path(__file__).parents[1]
    pins = {name: entry["pinned"] for name, entry in tomllib.loads((root / "clients" / "versions.toml").read_text()).items()}
    shown = {row["name"]: row["version"] for table in json.loads((root / "docs" / "clients.json").read_text())["tables"]
             for row in table["implementations"]}
    assert shown == pins


#: the provenance the vectors of a rocketmq-clients commit name (the first gRPC vectors' form), as a run
COMMIT_RUN = {"rocketmq": "5.3.3", "commit": "da8271b572b41b627bcbbdfb5b3310c0c5e4736b",
              "jdk": "17.0.15, Guava: Debian libguava-java 31.1-1", "fileEncoding": "UTF-8", "defaultCharset": "UTF-8",
              "client": "rocketmq-clients Java da8271b5"}


def _source_line(case: dict, run: dict) -> dict:
    """A golden case as the Java vectors' line of a rocketmq-clients commit: the newest version's answer."""
    expect = {key: value for key, value in case["expect"][-1].items() if key != "runs"}
    inputs = {key: case[key] for key in ("group", "queues", "route", "index", "steps") if key in case}
    guava = run["jdk"].split(", Guava: ")[1]
    return {"id": case["id"], "family": case["strategy"], "tags": [case["category"], *case["flags"]], **inputs, "expect": expect,
            "reference": {"repo": "apache/rocketmq-clients", "commit": run["commit"], "guava": guava, "jdk": run["jdk"].split(", Guava: ")[0]}}


@pytest.mark.once
def test_the_import_rebuilds_the_shipped_cases_and_drops_a_repeated_scenario(tmp_path):
    """Vectors of one commit's classes (the form the first gRPC vectors came in) import as one run
    whose answers are those the shipped cases hold for the newest version."""
    shipped = golden_dir() / "grpc"
    run = COMMIT_RUN
    source = tmp_path / "src"
    source.mkdir()
    (source / "vector.schema.json").write_text(json.dumps({"type": "object", "required": ["id", "family", "reference"]}))
    for family in FAMILIES:
        lines = [json.loads(line) for line in (shipped / f"{family}.jsonl").read_text().splitlines()]
        rebuilt = [_source_line(case, run) for case in lines]
        if family == "GROUP_HASH":  # the same scenario again, under another id: left out
            rebuilt.append({**rebuilt[0], "id": "grpc-pub-GROUP_HASH-9999-again"})
        (source / f"{family}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in rebuilt))
    from pytest_rmq_conformance.kinds.grpc.golden_import import import_vectors

    report = import_vectors(source, tmp_path / "out")
    assert report.duplicates == 1 and sum(report.cases.values()) == len(GOLDEN.cases)

    def answers(path, run_id):
        return [(case["id"], next(strip(group) for group in case["expect"] if run_id in group["runs"])) for case in read_cases(path)
                if any(run_id in group["runs"] for group in case["expect"])]

    def strip(group):
        return {key: value for key, value in group.items() if key != "runs"}

    for family in FAMILIES:
        mine, newest = answers(tmp_path / "out" / f"{family}.jsonl", "5.3.3+java-da8271b5"), answers(shipped / f"{family}.jsonl", RUN)
        assert mine == newest
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["runs"] == {"5.3.3+java-da8271b5": COMMIT_RUN}


def test_the_import_refuses_two_provenances_naming_the_line(tmp_path):
    from pytest_rmq_conformance.engine.golden.data import GoldenDataError
    from pytest_rmq_conformance.kinds.grpc.golden_import import import_vectors

    shipped = golden_dir() / "grpc"
    run = COMMIT_RUN
    lines = [_source_line(json.loads(line), run) for line in (shipped / "GROUP_HASH.jsonl").read_text().splitlines()[:2]]
    lines[1]["reference"]["commit"] = "0" * 40
    (tmp_path / "vector.schema.json").write_text("{}")
    (tmp_path / "GROUP_HASH.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(GoldenDataError, match=r"GROUP_HASH.jsonl:2 .*provenance .* differs"):
        import_vectors(tmp_path, tmp_path / "out")


def test_a_balancer_failure_shows_whole_steps_and_the_routes_endpoints():
    """A step wraps rather than being cut, so excluded endpoints that differ from a broker's only in
    order, and a count of 0, can be read; the endpoints line shows each broker's, in order."""
    from pytest_rmq_conformance.kinds.grpc.failures import balancer_lines
    from pytest_rmq_conformance.kinds.grpc.play import Mismatch

    reordered = "grpc-pub-PUBLISH_ROUND_ROBIN-0292-small"
    (case,) = [case for case in GOLDEN.cases if case.id == reordered]
    lines = balancer_lines(case, case.answers_for(RUN), _play("AddressesInAnyOrder", reordered))
    assert lines[3:5] == ["    endpoints: broker-a IPv4:10.0.0.1:8081,10.0.0.2:8081; broker-b IPv4:10.0.1.1:10911; broker-c",
                          "       DOMAIN_NAME:broker-0-2.rmq.example:8080; broker-d DOMAIN_NAME:broker-0-3.rmq.example:8080"]
    assert lines[-2:] == ["       0  take_message_queues(excluded=[IPv4:10.0.0.2:8081,             Java queues [1, 5, 12]       strategy queues [5, 12]",
                          "          10.0.0.1:8081], count=5)"]
    nothing = "grpc-pub-PUBLISH_ROUND_ROBIN-0005-small"  # takes count 0 past two excluded endpoints
    (case,) = [case for case in GOLDEN.cases if case.id == nothing]
    java = case.answers_for(RUN)
    lines = balancer_lines(case, java, Mismatch(case.id, RUN, 0, "", WRONG_QUEUES, None, {"outcomes": [{"queues": [0]}]}))
    step = [line for line in lines if line.startswith(("       0  ", "          "))]
    assert step[-1].endswith(", count=0)") and "strategy queues [0]" in step[0]
    assert "".join(line[10:].split("  Java ")[0].rstrip() if i == 0 else line[10:] for i, line in enumerate(step)) == (
        "take_message_queues(excluded=[IPv6:[fd00::0:2]:8081, IPv4:10.2.1.1:10911, IPv4:10.0.2.1:8081, IPv4:10.1.2.1:10911, "
        "IPv4:10.0.0.1:10911,10.0.0.2:8081, DOMAIN_NAME:broker-1-0.rmq.example:8080], count=0)")


def test_the_header_names_the_java_client_the_vectors_come_from(pytester):
    result = pytester.runpytest(*Q, "--rmq-strategy=GROUP_HASH", "--co")
    result.stdout.fnmatch_lines(["rmq-conformance: rocketmq-client-java 5.2.0, with RocketMQ 5.5.0 (default), charset UTF-8, "
                                 "answers compared call by call*",
                                 "rmq-conformance: invariants: * (Java's GROUP_HASH at rocketmq-client-java 5.2.0, with RocketMQ 5.5.0)"])


def test_an_isolated_balancer_keeps_its_declared_offset(mutants):
    """Run in the built-in harness, a balancer's rmq_index_offset is its hello's indexOffsets:
    the declared twins pass case 0130 (the int32 one storing 2^31 - 1 where Java's is -2^31) and
    the never-wrapping one is counter drift there, shown by a probe take."""
    case = "--rmq-case=grpc-pub-SUBSCRIBE_ROUND_ROBIN-0130-near-int-max"
    declared = mutants.runpytest(*Q, "--rmq-isolate", "--rmq-strategy=grpc_mutants:IncrementFirstDeclared", case)
    assert declared.ret == 0, declared.stdout.str()[-2000:]
    drift = mutants.runpytest(*Q, "--rmq-isolate", "--rmq-strategy=grpc_mutants:NeverWraps", case)
    assert drift.ret == 1
    drift.stdout.fnmatch_lines(["*0130-near-int-max (SUBSCRIBE_ROUND_ROBIN, *): probe 1 of 8 after the steps, the take on 13 queues: "
                                "queue 11, Java's queue 2; after the steps the index reads back 2147483648 (its 2147483647 less its offset -1)*",
                                "*by impact: 1 counter drift*"])
    wrapping = mutants.runpytest(*Q, "--rmq-isolate", "--rmq-strategy=grpc_mutants:Int32IncrementFirst", case)
    assert wrapping.ret == 0, wrapping.stdout.str()[-2000:]


@pytest.mark.cross_product
@pytest.mark.parametrize("name", ["Int32IncrementFirst", "Int32IncrementFirstPublishing"])
def test_an_int32_that_increments_before_it_reads_passes_the_generated_checks(mutants, name):
    """The reference check and the invariants (index-wraps draws start within a few takes of
    2^31 - 1) judge it by its takes too; the never-wrapping counter fails both."""
    result = mutants.runpytest("-p", "no:cacheprovider", "--rmq-checks=reference,invariants", f"--rmq-strategy=grpc_mutants:{name}")
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert result.parseoutcomes()["passed"] >= 3


def test_a_never_wrapping_counter_declared_one_behind_fails_the_generated_checks(mutants):
    result = mutants.runpytest("-p", "no:cacheprovider", "--rmq-checks=reference,invariants", "--rmq-strategy=grpc_mutants:NeverWraps")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*breaks index-wraps*", "*Java's int gives*; probe * of 8 after the steps, the take on * queues*"])


def test_a_balancer_without_update_is_judged_by_its_stored_number(pytester):
    """No update(), no probe route: a balancer with no Java twin that claims index-wraps is held
    to Java's int by the number it reads back, and one that never wraps fails."""
    pytester.makepyfile(own="""
from pytest_rmq_conformance.ports.grpc import SubscriptionLoadBalancer

class Own(SubscriptionLoadBalancer):
    name = "MY_ROUND_ROBIN"
    rmq_properties = {"index-wraps"}
    update = None

class OwnNoWrap(Own):
    def take_message_queue(self):
        value = self._index.value
        self._index.value = value + 1
        return self.message_queues[value % len(self.message_queues)]
""")
    pytester.syspathinsert()
    ok = pytester.runpytest("-p", "no:cacheprovider", "--rmq-checks=invariants", "--rmq-strategy=own:Own")
    assert ok.ret == 0, ok.stdout.str()[-2000:]
    wrong = pytester.runpytest("-p", "no:cacheprovider", "--rmq-checks=invariants", "--rmq-strategy=own:OwnNoWrap")
    assert wrong.ret == 1
    wrong.stdout.fnmatch_lines(["*Java's int gives -2147483648; the balancer's reads back 2147483648*"])


def test_a_probe_route_a_client_cannot_take_is_no_verdict_on_its_counter():
    """The probes judge the counter only: a balancer whose index after the steps is Java's passes
    without them, and one that answers a probe route's update unlike Java is judged by its number,
    as before the probes (a client that refuses the probe broker's address is not accused)."""
    from pytest_rmq_conformance.kinds.grpc.play import index_divergence
    from pytest_rmq_conformance.kinds.grpc.probes import java_probes

    javas = java_probes("PUBLISH_ROUND_ROBIN", 5)
    refused = [{"filtered": [None] * len(j["filtered"])} if "filtered" in j else j for j in javas]
    assert index_divergence("PUBLISH_ROUND_ROBIN", 5, {"indexAfter": 5, "probes": refused}) is None
    assert index_divergence("PUBLISH_ROUND_ROBIN", 5, {"indexAfter": 5}, lambda: pytest.fail("asked for probes")) is None
    assert index_divergence("PUBLISH_ROUND_ROBIN", 5, {"indexAfter": 6, "probes": refused}) == (None, "counter-drift", None)
    asked = []
    assert index_divergence("PUBLISH_ROUND_ROBIN", 5, {"indexAfter": 5 + 13 * 17 * 19 * 23 * 25 * 27 * 29 * 31 - 2**32 * 0},
                            lambda: asked.append(1) or javas) is None
    assert asked == [1]
