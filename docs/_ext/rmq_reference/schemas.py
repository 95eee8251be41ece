"""``rmq-schema NAME``: ``schemas/NAME.schema.json`` as a section: its title and description, a
table of its properties (nested objects flattened to dotted paths, ``[]`` for an array's items,
the shapes of a ``oneOf`` one after the other), its ``$defs`` and its ``examples``.

A schema the page cannot describe is an error naming the file and the place in it: no title or
no description at the top, a ``type`` JSON Schema does not have, a ``$ref`` to nothing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from rmq_reference.rst import inline, paragraph

TYPES = {"string", "integer", "number", "boolean", "object", "array", "null"}
SUFFIX = ".schema.json"


class SchemaDocError(ValueError):
    """A schema the reference cannot describe; the message starts with the file."""


def anchor(schema: str, definition: str | None = None) -> str:
    return nodes.make_id(schema if definition is None else f"{schema}-{definition}")


@dataclass
class Row:
    path: str
    type: list[nodes.Node]
    required: bool
    description: str
    shape: str | None = None  # a row that opens a shape of a oneOf: its label


class Schema:
    """One schema file, read and checked."""

    def __init__(self, path: Path):
        self.path = path
        self.name = path.name.removesuffix(SUFFIX)
        try:
            self.data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SchemaDocError(f"{path}: cannot be read as JSON: {exc}") from None
        for key in ("title", "description"):
            if not isinstance(self.data.get(key), str) or not self.data[key].strip():
                raise SchemaDocError(f"{path}: the schema has no {key} (the reference shows it)")
        self._check_types(self.data, "#")

    def error(self, where: str, what: str) -> SchemaDocError:
        return SchemaDocError(f"{self.path}: {where}: {what}")

    def _check_types(self, node: Any, where: str) -> None:
        if isinstance(node, list):
            for index, item in enumerate(node):
                self._check_types(item, f"{where}/{index}")
        if not isinstance(node, dict):
            return
        declared = node.get("type")
        if declared is not None and not isinstance(declared, dict):
            for name in declared if isinstance(declared, list) else [declared]:
                if name not in TYPES:
                    raise self.error(where, f"unknown type {name!r} (JSON Schema has {', '.join(sorted(TYPES))})")
        for key, value in node.items():
            if key in ("properties", "$defs", "patternProperties"):
                for name, sub in value.items():
                    self._check_types(sub, f"{where}/{key}/{name}")
            elif key not in ("enum", "const", "examples", "default", "required"):
                self._check_types(value, f"{where}/{key}")

    # -- types ---------------------------------------------------------------------------------

    def ref(self, target: str, where: str) -> list[nodes.Node]:
        """A link to the definition ``target`` names (``#/$defs/x`` or ``other.schema.json#/$defs/x``)."""
        file, _, pointer = target.partition("#")
        schema = file.removesuffix(SUFFIX) if file else self.name
        data = _load(self.path.parent / file, where, self) if file else self.data
        parts = [part.replace("~1", "/").replace("~0", "~") for part in pointer.strip("/").split("/") if part]
        node: Any = data
        for part in parts:
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise self.error(where, f"$ref {target!r} points to nothing")
        words = [part for part in parts if part not in ("$defs", "properties")]
        label = ".".join(words) if words else "(the whole schema)"
        if file:
            label = f"{schema}: {label}"
        name = parts[1] if len(parts) > 1 and parts[0] == "$defs" else None
        link = nodes.reference("", "", refid=anchor(schema, name), internal=True)
        link += nodes.literal(label, label)
        return [link]

    def type_of(self, node: Any, where: str) -> list[nodes.Node]:
        """What ``node`` allows, as inline nodes: ``integer ≥ 0``, ``array of <link>``, ``"hello"``..."""
        if node is True or node == {}:
            return [nodes.Text("any")]
        if node is False:
            return [nodes.Text("nothing")]
        if "$ref" in node:
            return self.ref(node["$ref"], where)
        if "const" in node:
            return [nodes.literal("", json.dumps(node["const"]))]
        if "enum" in node:
            values = _joined([[nodes.literal("", json.dumps(value))] for value in node["enum"]], ", ")
            return values if len(node["enum"]) == 1 else [nodes.Text("one of ")] + values
        for key in ("oneOf", "anyOf"):
            if key in node and "properties" not in node:
                shapes = [self.type_of(sub, f"{where}/{key}/{index}") for index, sub in enumerate(node[key])]
                return _joined(shapes, " or ")
        declared = node.get("type")
        names = declared if isinstance(declared, list) else [declared] if declared else []
        if not names:
            names = ["object"] if "properties" in node else ["array"] if "items" in node else []
        out: list[list[nodes.Node]] = []
        for name in names:
            text: list[nodes.Node] = [nodes.Text(name)]
            if name == "array":
                if "prefixItems" in node:
                    items = [self.type_of(sub, f"{where}/prefixItems/{i}") for i, sub in enumerate(node["prefixItems"])]
                    text = [nodes.Text("[")] + _joined(items, ", ") + [nodes.Text("]")]
                elif "items" in node:
                    text = [nodes.Text("array of ")] + self.type_of(node["items"], f"{where}/items")
            elif name == "object" and isinstance(node.get("additionalProperties"), dict) and "properties" not in node:
                text = [nodes.Text("object of ")] + self.type_of(
                    node["additionalProperties"], f"{where}/additionalProperties"
                )
            out.append(text + _bounds(node, name))
        return _joined(out, " or ") if out else [nodes.Text("any")]

    # -- rows ----------------------------------------------------------------------------------

    def rows(self, node: Any, prefix: str, where: str) -> list[Row]:
        """The rows of object ``node``'s properties, then of each shape of its ``oneOf``/``anyOf``."""
        rows: list[Row] = []
        required = set(node.get("required", []))
        for name, sub in node.get("properties", {}).items():
            if sub is True and name in required:  # "as above" in a shape of a oneOf
                continue
            rows.extend(self.property_rows(f"{prefix}{name}", sub, name in required, f"{where}/properties/{name}"))
        for key in ("oneOf", "anyOf"):
            objects = [
                (index, shape)
                for index, shape in enumerate(node.get(key, []))
                if isinstance(shape, dict) and "properties" in shape
            ]
            where_ = prefix.rstrip(".") or "the message"
            for number, (index, shape) in enumerate(objects, 1):
                label = (
                    f"{where_}, when an object:"
                    if len(objects) == 1
                    else f"{where_}, shape {number} of {len(objects)}:"
                )
                rows.append(Row(where_, [], False, shape.get("description", ""), label))
                rows.extend(self.rows(shape, prefix, f"{where}/{key}/{index}"))
        return rows

    def property_rows(self, path: str, node: Any, required: bool, where: str) -> list[Row]:
        description = node.get("description", "") if isinstance(node, dict) else ""
        rows = [Row(path, self.type_of(node, where), required, description)]
        if not isinstance(node, dict):
            return rows
        if "properties" in node or any(
            isinstance(s, dict) and "properties" in s for key in ("oneOf", "anyOf") for s in node.get(key, [])
        ):
            rows.extend(self.rows(node, f"{path}.", where))
        items = node.get("items")
        if isinstance(items, dict) and (
            "properties" in items
            or any(isinstance(s, dict) and "properties" in s for key in ("oneOf", "anyOf") for s in items.get(key, []))
        ):
            rows.extend(self.rows(items, f"{path}[].", f"{where}/items"))
        return rows


_CACHE: dict[Path, dict] = {}


def _load(path: Path, where: str, schema: Schema) -> dict:
    if path not in _CACHE:
        try:
            _CACHE[path] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise schema.error(where, f"$ref to {path.name}: {exc}") from None
    return _CACHE[path]


def _joined(parts: list[list[nodes.Node]], separator: str) -> list[nodes.Node]:
    """The parts with ``separator`` between them, a part that reads as an earlier one left out."""
    seen: set[str] = set()
    unique = []
    for part in parts:
        text = "".join(node.astext() for node in part)
        if separator == ", " or text not in seen:
            unique.append(part)
        seen.add(text)
    out: list[nodes.Node] = []
    for index, part in enumerate(unique):
        if index:
            out.append(nodes.Text(separator))
        out.extend(part)
    return out


def _bounds(node: dict, name: str) -> list[nodes.Node]:
    notes = []
    if "minimum" in node and "maximum" in node:
        notes.append(f"{node['minimum']} to {node['maximum']}")
    elif "minimum" in node:
        notes.append(f"≥ {node['minimum']}")
    elif "maximum" in node:
        notes.append(f"≤ {node['maximum']}")
    if name == "array":
        low, high = node.get("minItems"), node.get("maxItems")
        if low is not None and low == high:
            notes.append(f"{low} items")
        elif low:
            notes.append(f"≥ {low} item" + ("s" if low > 1 else ""))
        elif high is not None:
            notes.append(f"≤ {high} items")
        if node.get("uniqueItems"):
            notes.append("unique")
    if name == "string" and node.get("minLength"):
        notes.append("not empty" if node["minLength"] == 1 else f"≥ {node['minLength']} characters")
    if "format" in node and name == "string":
        notes.append(node["format"])
    out: list[nodes.Node] = []
    if notes:
        out.append(nodes.Text(" (" + ", ".join(notes) + ")"))
    if "pattern" in node and name == "string":
        out += [nodes.Text(" matching "), nodes.literal("", node["pattern"])]
    return out


def _table(rows: list[Row]) -> nodes.table:
    """The rows as a table; without a Description column when no row has a description."""
    described = any(row.description for row in rows if row.shape is None)
    headings = ["Property", "Type", "Required"] + (["Description"] if described else [])
    table = nodes.table(classes=["rmq-schema-table"])
    group = nodes.tgroup(cols=len(headings))
    table += group
    for width in (26, 34, 10, 30)[: len(headings)]:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row([nodes.Text(text)] for text in headings)
    body = nodes.tbody()
    group += body
    for row in rows:
        if row.shape is not None:
            cells = [[nodes.emphasis("", row.shape)]]
            if row.description:
                cells[0] += [nodes.Text(" ")] + inline(row.description)
            body += _row(cells, span=len(headings) - 1)
            continue
        cells = [[nodes.literal("", row.path)], row.type, [nodes.Text("yes" if row.required else "")]]
        if described:
            cells.append(inline(row.description))
        body += _row(cells)
    return table


def _row(cells, span: int = 0) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry(morecols=span) if span else nodes.entry()
        entry += paragraph(*cell)
        row += entry
    return row


def render(schema: Schema, document: nodes.document) -> nodes.section:
    """``schema`` as a section whose id is its name (``protocol-hello-request``)."""
    data = schema.data
    section = nodes.section(ids=[anchor(schema.name)], names=[schema.name])
    section += nodes.title("", "", *inline(data["title"]))
    section += paragraph(*inline(data["description"]))
    section += paragraph(nodes.Text("File: "), nodes.literal("", f"schemas/{schema.path.name}"))
    rows = schema.rows(data, "", "#")
    if rows:
        section += _table(rows)
    elif data.get("type") != "object" or "additionalProperties" in data:
        section += paragraph(nodes.Text("Value: "), *schema.type_of(data, "#"))
    for name, definition in data.get("$defs", {}).items():
        where = f"#/$defs/{name}"
        entry = nodes.container(ids=[anchor(schema.name, name)], classes=["rmq-schema-def"])
        entry += nodes.rubric("", "", nodes.Text("Definition "), nodes.literal("", name))
        if isinstance(definition, dict) and definition.get("description"):
            entry += paragraph(*inline(definition["description"]))
        entry += paragraph(nodes.Text("Type: "), *schema.type_of(definition, where))
        def_rows = schema.rows(definition, "", where) if isinstance(definition, dict) else []
        if def_rows:
            entry += _table(def_rows)
        section += entry
    examples = data.get("examples", [])
    if examples:
        section += nodes.rubric("", "Example" if len(examples) == 1 else "Examples")
        if any("\n" in _example_text(example) for example in examples):
            note = "Each is one line in the file or on the pipe; the long ones are spread over lines here."
            if len(examples) == 1:
                note = "One line in the file or on the pipe, spread over lines here."
            section += paragraph(nodes.Text(note))
    for example in examples:
        text = _example_text(example)
        section += nodes.literal_block(text, text, language="json")
    return section


def _example_text(example: Any) -> str:
    """One line, as on the pipe (ASCII, as the suite writes it); a long object one key a line."""
    text = json.dumps(example)
    if len(text) <= 88 or not isinstance(example, dict):
        return text
    lines = []
    for key, value in example.items():
        compact = json.dumps(value)
        if isinstance(value, list) and len(compact) > 64:  # a long list: an item a line
            compact = "[\n" + ",\n".join(f"    {json.dumps(item)}" for item in value) + "\n  ]"
        lines.append(f"  {json.dumps(key)}: {compact}")
    return "{\n" + ",\n".join(lines) + "\n}"


class SchemaDirective(SphinxDirective):
    """``rmq-schema NAME``: ``NAME.schema.json`` of ``rmq_schemas_dir`` (default: the repository's ``schemas/``)."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        path = Path(self.config.rmq_schemas_dir) / f"{self.arguments[0]}{SUFFIX}"
        self.env.note_dependency(str(path))
        if not path.is_file():
            raise self.error(f"rmq-schema: {path}: no such schema")
        try:
            section = render(Schema(path), self.state.document)
        except SchemaDocError as exc:
            raise self.error(f"rmq-schema: {exc}") from None
        self.state.document.note_implicit_target(section)
        return [section]
