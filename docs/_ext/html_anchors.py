"""Let ``[text](#id)`` links reach ``<a id="id"></a>`` anchors written as raw HTML.

The generated reports (docs/clients.md and the sweep reports) mark their entries with raw HTML
anchors, which GitHub's Markdown honours and MyST does not see: this transform adds each one to
the page's anchors, so that Sphinx resolves links to it and still warns about any that do not exist.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from docutils.transforms import Transform

ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


class RawHtmlAnchors(Transform):
    """Before MyST resolves ``#id`` links (priority 879), record the raw HTML anchors as slugs."""

    default_priority = 870

    def apply(self, **kwargs: Any) -> None:
        slugs = getattr(self.document, "myst_slugs", None)
        if slugs is None:
            slugs = {}
            self.document.myst_slugs = slugs
        for node in self.document.findall(nodes.raw):
            if "html" not in node.get("format", "").split():
                continue
            for anchor in ANCHOR.findall(node.astext()):
                slugs.setdefault(anchor, (node.line or 0, anchor, anchor))
        env = getattr(self.document.settings, "env", None)
        if env is not None and slugs:
            env.metadata[env.docname]["myst_slugs"] = slugs


def setup(app: Any) -> dict[str, Any]:
    app.add_transform(RawHtmlAnchors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
