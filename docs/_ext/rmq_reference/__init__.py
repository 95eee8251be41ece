"""Sphinx extension generating the reference pages from the code and the schemas.

Directives (usable from MyST as ```` ```{rmq-options} ```` and from reStructuredText):

``rmq-options``
    every pytest option and ini key the plugin's ``pytest_addoption`` adds
``rmq-schema NAME``
    ``schemas/NAME.schema.json``: title, description, its properties, ``$defs`` and examples
``rmq-fixtures``
    the fixtures the plugin registers: scope, what they use, their docstrings
``rmq-api``
    one autodoc entry per name of ``pytest_rmq_conformance.__all__``, grouped as in its ``_MODULES``

It also resolves references to internal paths of public objects
(``pytest_rmq_conformance.model.MessageQueue``) to their public names, so that docstrings may use
either, and adds the object type ``fixture`` (``{fixture}`rmq_golden```).
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx

from rmq_reference import api, fixtures, options, refs, schemas

REPOSITORY = Path(__file__).resolve().parents[3]


def _standard_library(app: Sphinx, config) -> None:
    """The standard library's types in signatures (``collections.abc.Mapping``, ``pathlib.Path``) have
    no page here: intersphinx would need the network, which the build does without."""
    config.nitpick_ignore_regex = [
        *config.nitpick_ignore_regex,
        ("py:class", r"(collections\.abc|pathlib|typing|types|enum|random|argparse)\.\w+"),
        ("py:class", r"(Path|Random)"),
    ]


def _static(app: Sphinx) -> None:
    """The reference pages' style sheet (the schema tables)."""
    if app.builder.format == "html":
        app.config.html_static_path = [*app.config.html_static_path, str(Path(__file__).parent / "static")]
        app.add_css_file("rmq-reference.css")


def setup(app: Sphinx) -> dict:
    app.add_config_value("rmq_schemas_dir", str(REPOSITORY / "schemas"), "env", [str])
    app.add_object_type("fixture", "fixture", indextemplate="pair: %s; fixture")
    app.add_directive("rmq-options", options.OptionsDirective)
    app.add_directive("rmq-schema", schemas.SchemaDirective)
    app.add_directive("rmq-fixtures", fixtures.FixturesDirective)
    api.setup(app)
    refs.setup(app)
    app.connect("config-inited", _standard_library)
    app.connect("builder-inited", _static)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
