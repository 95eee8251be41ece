"""The golden files match their schemas, and broken golden data is refused clearly."""

import json
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_rmq_conformance.engine.golden.data import GoldenDataError, load_golden, schema_problems
from pytest_rmq_conformance.engine.resources import golden_dir, schemas_dir

pytestmark = pytest.mark.once


@pytest.mark.parametrize("path", sorted(golden_dir().glob("*.jsonl")), ids=lambda p: p.name)
def test_every_golden_case_matches_the_schema(path):
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        assert schema_problems("golden-case", json.loads(line)) == [], f"{path.name}:{number}"


def test_manifest_matches_its_schema():
    manifest = json.loads((golden_dir() / "manifest.json").read_text())
    assert schema_problems("golden-manifest", manifest) == []
    assert set(manifest["files"]) == {p.name for p in golden_dir().glob("*.jsonl")}


def test_golden_files_are_ascii():
    for path in golden_dir().glob("*.jsonl"):
        path.read_bytes().decode("ascii")


#: golden/README.md's size budget: the whole golden/ ships in the wheel
BUDGET = 16 * 1024 * 1024


def test_the_golden_data_stays_within_its_size_budget():
    files = [path for path in golden_dir().rglob("*") if path.is_file()]
    total = sum(path.stat().st_size for path in files)
    assert len(files) > 10 and total <= BUDGET, f"golden/ holds {total:,} bytes, over its budget of {BUDGET:,} (golden/README.md)"


def test_schemas_are_valid_draft_2020_12():
    from jsonschema import Draft202012Validator

    for path in schemas_dir().glob("*.schema.json"):
        Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_loaded_set(golden):
    assert len(golden.cases) == 1557
    assert len(golden.runs) == 56  # 35 releases, and the 21 from 4.1.0 to 4.9.8 under ISO-8859-1 too
    assert golden.runs["4.9.8+ISO-8859-1"].default_charset == "ISO-8859-1"
    assert golden.runs["5.3.3"].maven == "org.apache.rocketmq:rocketmq-client:5.3.3"
    assert len(dict(golden.runs["5.3.3"].jars)["rocketmq-client-5.3.3.jar"]) == 64
    assert len({case.id for case in golden.cases}) == len(golden.cases)


@pytest.fixture
def golden_copy(tmp_path):
    target = tmp_path / "golden"
    shutil.copytree(golden_dir(), target)
    return target


def rewrite_line(path, number, edit):
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = edit(lines[number - 1])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def edit_case(change):
    def edit(line):
        data = json.loads(line)
        change(data)
        return json.dumps(data)

    return edit


def test_copy_loads(golden_copy):
    """A user's directory is validated line by line (the shipped files' validation is the test above)."""
    assert len(load_golden(golden_copy, ["CONFIG", "MACHINE_ROOM"]).cases) == 22 + 130


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(mqAll="oops"), "breaks schemas/golden-case.schema.json: at mqAll"),
        (lambda d: d["expect"][0]["results"][0].update(queues=["0"]), "at expect/0/results/0"),
        (lambda d: d["expect"][0]["results"][0].update(queues=[999]), "queue index 999 is outside mqAll"),
        (lambda d: d["expect"][0].update(runs=["9.9.9"]), "names run '9.9.9'"),
        (lambda d: d["javaSorted"].update(cidAll=[0, 0, 0]), "javaSorted/cidAll: is not a permutation"),
        (lambda d: d.pop("category"), "'category' is a required property"),
        (lambda d: d.update(strategy="CONFIG"), "a CONFIG case belongs in CONFIG.jsonl"),
    ],
    ids=["type", "queue-ref", "index", "run", "permutation", "required", "wrong-file"],
)
def test_corrupted_case_is_rejected_naming_file_line_and_case(golden_copy, change, message):
    rewrite_line(golden_copy / "AVG.jsonl", 5, edit_case(change))
    with pytest.raises(GoldenDataError) as info:
        load_golden(golden_copy)
    text = str(info.value)
    assert "AVG.jsonl:5" in text
    assert "pub-AVG-0005-" in text
    assert message in text


def test_truncated_line_is_rejected(golden_copy):
    rewrite_line(golden_copy / "CONFIG.jsonl", 3, lambda line: line[: len(line) // 2])
    with pytest.raises(GoldenDataError, match=r"CONFIG\.jsonl:3: not JSON"):
        load_golden(golden_copy, ["CONFIG"])


def test_duplicate_id_is_rejected(golden_copy):
    path = golden_copy / "CONFIG.jsonl"
    first = path.read_text().splitlines()[0]
    path.write_text(path.read_text() + first + "\n")
    with pytest.raises(GoldenDataError, match=r"duplicate case id, first seen at .*CONFIG\.jsonl:1"):
        load_golden(golden_copy, ["CONFIG"])


def test_broken_manifest_is_rejected(golden_copy):
    (golden_copy / "manifest.json").write_text('{"format": 2}')
    with pytest.raises(GoldenDataError, match=r"manifest\.json: not a valid golden manifest"):
        load_golden(golden_copy)


def test_missing_directory_is_rejected(tmp_path):
    with pytest.raises(GoldenDataError, match="golden directory not found"):
        load_golden(tmp_path / "nowhere")


def test_data_is_found_next_to_the_imported_package():
    """Inside the package when installed from a wheel, the project's top level in a checkout."""
    from pathlib import Path

    import pytest_rmq_conformance

    package = Path(pytest_rmq_conformance.__file__).resolve().parent
    assert golden_dir() in (package / "data" / "golden", package.parent / "golden")
    assert schemas_dir().parent == golden_dir().parent


LAZY = [("expect", "*", "steps")]


def _loaded(value):
    """``value`` with every RawJSON in it parsed."""
    from pytest_rmq_conformance.engine.golden.data import RawJSON

    if isinstance(value, RawJSON):
        return value.load()
    if isinstance(value, dict):
        return {key: _loaded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_loaded(item) for item in value]
    return value


@pytest.mark.parametrize(
    "text",
    [
        '{"id": 1, "expect": [{"runs": ["a"], "steps": [null, {"expect": {"q": [1, 2]}}]}, {"steps": []}]}',
        ' { "expect" : [ { "steps" : [ 1 , "]}" ] , "x" : { } } ] , "steps" : [ [ ] ] } ',
        '{"expect": {"steps": [1]}, "other": [{"steps": [2]}]}',
        '{"expect": [{"steps": null}, 3, [4]]}',
        '[{"expect": []}, "expect", 1.5, true, null]',
        '{}',
        '"\\u00e9\\"}"',
    ],
)
def test_a_line_read_lazily_is_the_line_parsed(text):
    from pytest_rmq_conformance.engine.golden.data import RawJSON, loads_lazily

    read = loads_lazily(text, LAZY)
    assert _loaded(read) == json.loads(text)
    document = json.loads(text)
    if isinstance(document, dict) and isinstance(document.get("expect"), list):
        for group, raw in zip(document["expect"], read["expect"]):
            if isinstance(group, dict) and "steps" in group:
                assert isinstance(raw["steps"], RawJSON)
                assert raw["steps"].length == (len(group["steps"]) if isinstance(group["steps"], list) else None)


@pytest.mark.parametrize("text", ['{"expect": [{"steps": [1, ]}]}', '{"expect": [{"steps": [1]}', '{"a": 1} x', '{"a" 1}', '{a: 1}', "[1 2]", ""])
def test_a_broken_line_read_lazily_is_refused_as_json_is(text):
    from pytest_rmq_conformance.engine.golden.data import loads_lazily

    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    with pytest.raises(json.JSONDecodeError):
        loads_lazily(text, LAZY)


def test_a_lazy_array_with_its_length_hint_is_passed_over_and_a_wrong_hint_is_refused():
    from pytest_rmq_conformance.engine.golden.data import compact_json, loads_lazily

    steps = [None, {"expect": {"queue": ["A", 1], "listIndex": 0}}]
    text = compact_json({"expect": [{"runs": ["4.9.8"], "stepsLength": len(compact_json(steps)), "steps": steps}]})
    read = loads_lazily(text, LAZY)
    raw = read["expect"][0]["steps"]
    assert raw.length is None and raw.load() == steps and _loaded(read) == json.loads(text)
    for wrong in (len(compact_json(steps)) - 1, len(compact_json(steps)) + 1, 1):
        bad = text.replace(f'"stepsLength":{len(compact_json(steps))}', f'"stepsLength":{wrong}')
        with pytest.raises(json.JSONDecodeError):
            loads_lazily(bad, LAZY)


#: a document each schema accepts: the first line of a shipped file
ACCEPTED = {
    "golden-case": "AVG.jsonl",
    "golden-producer-case": "producer/FAULT_STRATEGY.jsonl",
    "golden-grpc-case": "grpc/PUBLISH_ROUND_ROBIN.jsonl",
}
ODD_VALUES = [None, -1, 2**31, "", "x", [], {}, True, 1.5, [["t", "b"]]]


def _plain(name):
    """jsonschema's own validator of a shipped schema, ``$ref``s looked up as it validates."""
    from jsonschema import Draft202012Validator

    from pytest_rmq_conformance.engine.resources import _registry, schema_path

    return Draft202012Validator(json.loads(schema_path(name).read_text()), registry=_registry())


def _verdicts(validator, document):
    return sorted((json.dumps(list(error.absolute_path)), error.message) for error in validator.iter_errors(document))


@pytest.mark.parametrize("name", sorted(ACCEPTED))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_validators_look_references_up_once_and_judge_as_jsonschema_does(name, data):
    from pytest_rmq_conformance.engine.resources import schema_validator

    document = json.loads((golden_dir() / ACCEPTED[name]).read_text().splitlines()[0])
    for _ in range(data.draw(st.integers(0, 3), label="changes")):  # odd values at random places
        node, key = document, None
        while isinstance(node, (dict, list)) and node and data.draw(st.booleans(), label="deeper"):
            keys = sorted(node) if isinstance(node, dict) else range(len(node))
            key = data.draw(st.sampled_from(list(keys)), label="key")
            if not isinstance(node[key], (dict, list)) or not node[key]:
                break
            node, key = node[key], None
        if key is not None:
            node[key] = data.draw(st.sampled_from(ODD_VALUES), label="value")
    assert "$ref" not in json.dumps(schema_validator(name).schema)
    assert _verdicts(schema_validator(name), document) == _verdicts(_plain(name), document)


def test_a_schema_that_refers_to_itself_keeps_that_reference(tmp_path):
    from pytest_rmq_conformance.engine.resources import schema_validator

    path = tmp_path / "tree.schema.json"
    path.write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/$defs/node",
        "$defs": {"node": {"type": "object", "properties": {"value": {"type": "integer"},
                                                            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
    }))
    validator = schema_validator(path)
    assert validator.is_valid({"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]})
    assert [list(e.absolute_path) for e in validator.iter_errors({"children": [{"children": [{"value": "x"}]}]})] == [
        ["children", 0, "children", 0, "value"]
    ]
