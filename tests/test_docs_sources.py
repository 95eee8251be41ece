"""The documentation's Markdown sources read on a code host, which renders plain CommonMark: no MyST
role ({doc}`page` shows as written), no link without text, no toctree block (shown as code; an index
page's plain list of links is its toctree, docs/_ext/nav_lists.py), and each directive that a code
host shows as code in place of what the site generates has a plain paragraph right above it
linking the file it is generated from. Pure text: no Sphinx."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from docs_pages import DOCS, ROOT, pages

if not (DOCS / "conf.py").is_file():  # an sdist holds the tests, not the documentation's sources
    pytest.skip(f"no documentation sources at {DOCS}", allow_module_level=True)
sys.path.insert(0, str(DOCS / "_ext"))

from nav_lists import NavListError, nav_lists, with_toctrees

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*(.*)$")
ROLE = re.compile(r"\{[A-Za-z][\w:+.-]*\}`")
EMPTY_LINK = re.compile(r"(?<!!)\[\]\(")
COLON_FENCE = re.compile(r"^ {0,3}:{3,}\s*\{")
TARGET = re.compile(r"^\([\w.:-]+\)=\s*$")
LINK = re.compile(r"\[[^\]]+\]\(([^)\s]+)\)")
# directives a code host shows as code where the site shows what they generate or include
GENERATED = {"rmq-api", "rmq-options", "rmq-fixtures", "rmq-schema", "argparse", "eval-rst", "automodule", "literalinclude", "include"}


def in_code_spans(line: str) -> list[bool]:
    """For each character of ``line``, whether it lies in an inline code span (a backtick run opens
    one, the next run of the same length closes it)."""
    inside = [False] * len(line)
    runs = list(re.finditer(r"`+", line))
    index = 0
    while index < len(runs):
        opening = runs[index]
        after = [run for run in runs[index + 1 :] if len(run.group()) == len(opening.group())]
        if not after:
            index += 1
            continue
        inside[opening.start() : after[0].end()] = [True] * (after[0].end() - opening.start())
        index = runs.index(after[0]) + 1
    return inside


def paragraph_above(lines: list[str], index: int) -> list[str]:
    """The lines of the block right above line ``index`` (0-based), blank lines between skipped."""
    end = index
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    start = end
    while start > 0 and lines[start - 1].strip():
        start -= 1
    return lines[start:end]


def directive_problems(page: Path, lines: list[str], index: int, kind: str, argument: str, where: str) -> list[str]:
    """What is wrong with the MyST directive block ``{kind} argument`` opened on line ``index``."""
    if kind not in GENERATED:
        hint = ": write the page's list of links under a <!-- toctree --> marker (docs/_ext/nav_lists.py)" if kind == "toctree" else ""
        return [f"{where}: a {{{kind}}} block, shown as code on a code host{hint}"]
    above = paragraph_above(lines, index)
    if not above or FENCE.match(above[-1]):
        return [f"{where}: the generated {{{kind}}} block has no plain paragraph above it linking its source"]
    sources = [target for target in LINK.findall(" ".join(above)) if "://" not in target and not target.split("#")[0].endswith(".md")]
    wanted = None
    if kind == "rmq-schema":
        wanted = f"{argument}.schema.json"
        sources = [target for target in sources if Path(target).name == wanted]
    elif kind in ("literalinclude", "include"):
        wanted = argument
        sources = [target for target in sources if Path(target) == Path(wanted)]
    if not sources:
        named = f" ({wanted})" if wanted else ""
        return [f"{where}: the paragraph above the generated {{{kind}}} block links no source file{named} that a code-host reader can read instead"]
    return [
        f"{where}: the paragraph above the {{{kind}}} block links {target}, which does not exist"
        for target in sources
        if not (page.parent / target.split("#")[0]).exists()
    ]


def prose_problems(line: str, where: str) -> list[str]:
    """What a code host shows as written in ``line`` of prose."""
    code = in_code_spans(line)
    problems = [
        f"{where}: the MyST role {role.group()[:-1]} shows as written on a code host: use a Markdown link"
        for role in ROLE.finditer(line)
        if not code[role.start()]
    ]
    if any(not code[link.start()] for link in EMPTY_LINK.finditer(line)):
        problems.append(f"{where}: a link without text shows as nothing on a code host: give it the page's title")
    if COLON_FENCE.match(line):
        problems.append(f"{where}: a ::: directive, shown as text on a code host")
    if TARGET.match(line):
        problems.append(f"{where}: a MyST target ({line.strip()}), shown as text on a code host: link the heading's anchor")
    return problems


def problems_of(page: Path, root: Path = ROOT) -> list[str]:
    """What a code host would not render of ``page``, each as ``file:line: what``."""
    name = page.relative_to(root) if page.is_relative_to(root) else page
    lines = page.read_text(encoding="utf-8").split("\n")
    problems = []
    fence = None  # the opening backtick or tilde run of the fenced block we are in
    for index, line in enumerate(lines):
        where = f"{name}:{index + 1}"
        opening = FENCE.match(line)
        if fence is not None:  # code: nothing in it is prose
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence) and not opening.group(2):
                fence = None
        elif opening:
            fence = opening.group(1)
            directive = re.match(r"\{([^}]*)\}\s*(.*)", opening.group(2).strip())
            if directive:
                problems += directive_problems(page, lines, index, directive.group(1), directive.group(2).strip(), where)
        else:
            problems += prose_problems(line, where)
    return problems


PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_the_page_reads_on_a_code_host(page):
    problems = problems_of(page)
    assert not problems, "\n".join(problems)


INDEXES = [DOCS / "index.md", *sorted(DOCS.glob("*/index.md"))]


@pytest.mark.parametrize("page", INDEXES, ids=[str(page.relative_to(ROOT)) for page in INDEXES])
def test_an_index_page_lists_its_pages_as_links_that_exist(page):
    navs = nav_lists(page.read_text(encoding="utf-8"))
    assert navs, f"{page.relative_to(ROOT)}: no <!-- toctree --> marked list of links"
    missing = [entry for nav in navs for entry in nav.entries if not (page.parent / f"{entry}.md").is_file()]
    assert not missing, f"{page.relative_to(ROOT)} lists pages that do not exist: {missing}"


def test_the_site_lists_every_index_page_from_its_parent():
    listed = {entry for nav in nav_lists((DOCS / "index.md").read_text(encoding="utf-8")) for entry in nav.entries}
    assert {f"{page.parent.name}/index" for page in INDEXES[1:]} <= listed


# -- the checks themselves ---------------------------------------------------------------------------


def test_what_a_code_host_does_not_render_is_named_by_file_and_line(tmp_path):
    (tmp_path / "source.py").write_text("", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n"
        "\n"
        "See {doc}`other` and {ref}`Title <label>`; `{doc}` in code is fine.\n"
        "An empty [](other.md) link.\n"
        "\n"
        "```{toctree}\n"
        "other\n"
        "```\n"
        "\n"
        "```{rmq-api}\n"
        "```\n"
        "\n"
        "Generated from [the source](source.py).\n"
        "\n"
        "```{rmq-options}\n"
        "```\n"
        "\n"
        "Generated from [a page](other.md).\n"
        "\n"
        "```{rmq-schema} results\n"
        "```\n"
        "\n"
        "```console\n"
        "$ echo {doc}`not prose`\n"
        "```\n"
        "\n"
        ":::{note}\n"
        "(a-target)=\n",
        encoding="utf-8",
    )
    problems = problems_of(page, tmp_path)
    assert problems == [
        "page.md:3: the MyST role {doc} shows as written on a code host: use a Markdown link",
        "page.md:3: the MyST role {ref} shows as written on a code host: use a Markdown link",
        "page.md:4: a link without text shows as nothing on a code host: give it the page's title",
        "page.md:6: a {toctree} block, shown as code on a code host: write the page's list of links under a <!-- toctree --> marker (docs/_ext/nav_lists.py)",
        "page.md:10: the generated {rmq-api} block has no plain paragraph above it linking its source",
        "page.md:20: the paragraph above the generated {rmq-schema} block links no source file (results.schema.json) that a code-host reader can read instead",
        "page.md:27: a ::: directive, shown as text on a code host",
        "page.md:28: a MyST target ((a-target)=), shown as text on a code host: link the heading's anchor",
    ]


def test_a_marked_list_becomes_a_hidden_toctree_in_its_order():
    text = "# Index\n\n<!-- toctree\n:caption: Reports\n:maxdepth: 1\n-->\n- [B](b.md): the second\n  wrapped.\n- [A](sub/a.md)\n\nAfter.\n"
    assert with_toctrees(text) == text.rstrip("\n") + "\n\n```{toctree}\n:hidden:\n:caption: Reports\n:maxdepth: 1\n\nb\nsub/a\n```\n"
    assert with_toctrees("# No list\n") == "# No list\n"


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("<!-- toctree -->\n- [A](a.md)\n- not a link\n", 3, "an item of the marked list starts with a link to a page"),
        ("<!-- toctree -->\n- [A](https://example.org/a.md)\n", 2, "a relative .md path"),
        ("<!-- toctree -->\n- [A](a.md#part)\n", 2, "a relative .md path"),
        ("<!-- toctree -->\n\n- [A](a.md)\n", 1, "not followed by a list of links"),
        ("<!-- toctree\nmaxdepth 1\n-->\n- [A](a.md)\n", 1, "not a toctree option"),
    ],
)
def test_a_marked_list_that_is_not_a_list_of_pages_is_an_error_naming_its_line(text, line, message):
    with pytest.raises(NavListError) as raised:
        nav_lists("# Index\n\n" + text)
    assert raised.value.line == line + 2
    assert message in str(raised.value)
