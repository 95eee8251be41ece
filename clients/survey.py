"""The survey of every npm and PyPI package named for RocketMQ and of the Apache RocketMQ Go clients
(clients/survey.toml): checked, rendered as a Markdown section for docs/clients.md (``to_markdown``)
or an HTML fragment (``to_html``), and, with the network, compared with the registries of today.

    python clients/survey.py                 # the Markdown section, on stdout
    python clients/survey.py --html          # the HTML fragment
    python clients/survey.py --readme README.md   # the README's paragraph on the real clients
    python clients/survey.py --refresh [--names FILE ...]
    python clients/survey.py --evidence      # downloads each package, checks what it cites

``--refresh`` asks each registry for the newest version of every surveyed package (PyPI's JSON
API, ``npm view``, ``go list -m MODULE@latest``) and prints each one that moved or vanished; with
``--names`` (lists of package names, one a line, first tab-separated column; ``registry:`` may
prefix a file name, ``pypi:`` by default) it also prints every listed name matching RocketMQ that
the survey lacks and the registry has. It never writes the survey: a person reads the new
package's code and writes its entry. Exit status 1 when something is to update.

``--evidence`` downloads each surveyed package at its surveyed version with its registry's own
client (into ``~/.cache/rmq-survey``, or ``$RMQ_SURVEY_CACHE``; a Go module by ``go mod download``
into Go's module cache, then copied there) and prints every citation of ``evidence`` its files do
not bear out; exit status 1 when there is one.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - pytest brings tomli to 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
SURVEY = HERE / "survey.toml"
VERSIONS = HERE / "versions.toml"

REGISTRIES = ("npm", "pypi", "go")
#: each registry as the prose names it
REGISTRY_NAMES = {"npm": "npm", "pypi": "PyPI", "go": "the Go module proxy"}
#: the suite's families a package can balance in its own code
FAMILIES = (
    "AVG",
    "AVG_BY_CIRCLE",
    "CONSISTENT_HASH",
    "CONFIG",
    "MACHINE_ROOM",
    "MACHINE_ROOM_NEARBY",
    "FAULT_STRATEGY",
    "SELECTOR_HASH",
    "SELECTOR_RANDOM",
    "GROUP_HASH",
    "PUBLISH_ROUND_ROBIN",
    "SUBSCRIBE_ROUND_ROBIN",
)
FIELDS = {
    "registry": str,
    "name": str,
    "version": str,
    "summary": str,
    "balances": list,
    "delegates": str,
    "judged": bool,
    "why": str,
    "evidence": list,
}
#: one citation of ``evidence``: a file of the package, its lines, and a word those lines hold
EVIDENCE = re.compile(r"(?P<file>[^\s:]+):(?P<first>[1-9]\d*)(?:-(?P<last>[1-9]\d*))? (?P<shows>\S.*)")
#: where ``fetch`` keeps the packages it downloads (outside any clone)
CACHE = Path(os.environ.get("RMQ_SURVEY_CACHE") or Path.home() / ".cache" / "rmq-survey")
#: a name "named for RocketMQ"; names with "rmq" are RocketMQ only when their summary says so
NAMED = re.compile(r"rocket[-_.]?mq", re.IGNORECASE)


class SurveyError(ValueError):
    """survey.toml breaks a rule: the message names the file and the entry."""


def _listed(words) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = list(words)
    return " and ".join(filter(None, [", ".join(words[:-1]), words[-1]]))


def load(path: Path = SURVEY, versions: Path | None = VERSIONS) -> dict:
    """The survey, checked: every field present and typed, families known, no name twice per
    registry, and ``judged`` true exactly for the clients ``versions`` lists (None: unchecked)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SurveyError(f"{path}: {error}") from error
    head = data.get("survey")
    if not isinstance(head, dict) or not all(
        isinstance(head.get(key), str) and head[key].strip() for key in ("date", *REGISTRIES)
    ):
        raise SurveyError(f"{path}: [survey] needs {_listed(('date', *REGISTRIES))} (how each registry was enumerated)")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", head["date"]):
        raise SurveyError(f"{path}: [survey] date {head['date']!r} is not YYYY-MM-DD")
    packages = data.get("package")
    if not isinstance(packages, list) or not packages:
        raise SurveyError(f"{path}: no [[package]] entries")
    seen: set[tuple[str, str]] = set()
    for number, entry in enumerate(packages, 1):
        where = f"{path}: [[package]] #{number} ({entry.get('registry')} {entry.get('name')})"
        for field, kind in FIELDS.items():
            if not isinstance(entry.get(field), kind):
                raise SurveyError(f"{where}: {field} must be a {kind.__name__}, not {entry.get(field)!r}")
            if kind is str and field != "summary" and not entry[field].strip():
                raise SurveyError(f"{where}: {field} is empty")
        extra = set(entry) - set(FIELDS)
        if extra:
            raise SurveyError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        if entry["registry"] not in REGISTRIES:
            raise SurveyError(f"{where}: registry must be one of {', '.join(REGISTRIES)}")
        if not entry["evidence"]:
            raise SurveyError(f"{where}: evidence is empty: cite the file and lines its verdict is read from")
        for cited in entry["evidence"]:
            found = EVIDENCE.fullmatch(cited) if isinstance(cited, str) else None
            if found is None or (found["last"] and int(found["last"]) < int(found["first"])):
                raise SurveyError(f"{where}: evidence {cited!r} is not 'FILE:FIRST[-LAST] WORD' (the lines hold WORD)")
        unknown = [family for family in entry["balances"] if family not in FAMILIES]
        if unknown:
            raise SurveyError(f"{where}: balances names no family of the suite: {', '.join(map(str, unknown))}")
        key = (entry["registry"], entry["name"].lower())
        if key in seen:
            raise SurveyError(f"{where}: listed twice")
        seen.add(key)
    if versions is not None:
        # a table of versions.toml names its package by ``package`` when its key is another name
        tables = tomllib.loads(Path(versions).read_text(encoding="utf-8"))
        # the control row (``control = true``: the reference client itself) is no surveyed package
        judged = {
            (table["registry"], table.get("package", key)): key
            for key, table in tables.items()
            if not table.get("control")
        }
        for entry in packages:
            listed = (entry["registry"], entry["name"]) in judged
            if entry["judged"] != listed:
                raise SurveyError(
                    f"{path}: {entry['registry']} {entry['name']} says judged = {str(entry['judged']).lower()}, "
                    f"but {versions} {'lists' if listed else 'does not list'} it"
                )
        missing = sorted(
            key for pair, key in judged.items() if pair not in {(p["registry"], p["name"]) for p in packages}
        )
        if missing:
            raise SurveyError(f"{path}: {versions} judges {', '.join(missing)}, which the survey lacks")
    return data


def _counts(packages: list[dict]) -> dict[str, tuple[int, int, int]]:
    return {
        registry: (
            sum(1 for p in packages if p["registry"] == registry),
            sum(1 for p in packages if p["registry"] == registry and p["balances"]),
            sum(1 for p in packages if p["registry"] == registry and p["judged"]),
        )
        for registry in REGISTRIES
    }


def _ordered(packages: list[dict]) -> list[dict]:
    """npm, PyPI, then Go; judged first, then those that balance in their own code, then by name."""
    return sorted(
        packages, key=lambda p: (REGISTRIES.index(p["registry"]), not p["judged"], not p["balances"], p["name"].lower())
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


INTRO = (
    "Surveyed {date}, each package read at its newest version: what it balances in its own code "
    "(the suite's families), what it hands to something else, and whether this report judges it; "
    '"read in" names the package\'s files and lines the verdict is read from.'
)


def cited_places(entry: dict) -> list[str]:
    """Each of ``entry``'s citations as ``FILE:LINES``, without the word the lines hold."""
    return [cited.split(" ", 1)[0] for cited in entry["evidence"]]


REFRESH = "python clients/survey.py --refresh"
#: the survey's heading, in the Markdown and the HTML
TITLE = "Every npm and PyPI package named for RocketMQ, and the Apache RocketMQ Go clients"


def _enumerated(head: dict) -> list[str]:
    """One line per registry: how it was enumerated."""
    return [
        f"How {REGISTRY_NAMES[registry]} was enumerated: {' '.join(head[registry].split())}" for registry in REGISTRIES
    ]


#: the line about ``--refresh``, after its command
ASKS = f"asks {_listed(REGISTRY_NAMES.values())} again and prints what moved."


def to_markdown(path: Path = SURVEY) -> str:
    """The survey as a Markdown section (``##``), one table row per package."""
    data = load(path, versions=None)
    head, packages = data["survey"], data["package"]
    counts = _counts(packages)
    lines = [
        f"## {TITLE}",
        "",
        INTRO.format(date=head["date"]),
        "",
        "| registry | packages | balance in their own code | judged here |",
        "| --- | ---: | ---: | ---: |",
    ]
    for registry in REGISTRIES:
        total, own, judged = counts[registry]
        lines.append(f"| {registry} | {total} | {own} | {judged} |")
    lines += [
        "",
        "| registry | package | newest | balances in its own code | delegates | judged | why | read in |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for p in _ordered(packages):
        cited = ", ".join(f"`{_cell(where)}`" for where in cited_places(p))
        lines.append(
            f"| {p['registry']} | `{_cell(p['name'])}` | {_cell(p['version'])} | "
            f"{', '.join(p['balances']) or 'nothing'} | {_cell(p['delegates'])} | "
            f"{'yes' if p['judged'] else 'no'} | {_cell(p['why'])} | {cited} |"
        )
    for line in _enumerated(head):
        lines += ["", line]
    lines += ["", f"`{REFRESH}` {ASKS}", ""]
    return "\n".join(lines)


#: the README's paragraph on the real clients; every number in it is counted from the survey
README_PARAGRAPH = (
    "Every package on npm and PyPI named for RocketMQ and the Apache RocketMQ project's Go clients were read "
    "({total}: {npm} on npm, {pypi} on PyPI, {go} on the Go module proxy); "
    "{own} balance queues in their own code, and the {judged} of them that run here are pinned and driven "
    "through their own classes ({unjudged}). Each cell counts the golden cases that differ from Java at the "
    "client's newest release and links to the first one; the last column says whether the client can share a "
    "group with Java clients. [docs/clients.md](docs/clients.md) has every release, why each client differs and "
    "the survey, with the file and lines each verdict is read from; [clients/README.md](clients/README.md) says "
    "how to rerun them."
)
README_START = re.compile(r"<!-- survey:start[^>]*-->\n")
README_END = "<!-- survey:end -->"


def readme_paragraph(path: Path = SURVEY) -> str:
    """The README's paragraph on the real clients, its numbers counted from the survey, wrapped at 100 columns."""
    packages = load(path, versions=None)["package"]
    counts = _counts(packages)
    own = sum(counts[registry][1] for registry in REGISTRIES)
    judged = sum(counts[registry][2] for registry in REGISTRIES)
    left = [p["name"] for p in _ordered(packages) if p["balances"] and not p["judged"]]
    unjudged = "all of them"
    if left:
        unjudged = (
            f"{_listed(f'`{name}`' for name in left)} {'do' if len(left) > 1 else 'does'} not: the survey says why"
        )
    text = README_PARAGRAPH.format(
        total=len(packages),
        **{registry: counts[registry][0] for registry in REGISTRIES},
        own=own,
        judged=judged,
        unjudged=unjudged,
    )
    return textwrap.fill(text, 100, break_long_words=False, break_on_hyphens=False) + "\n"


def _between_markers(text: str) -> tuple[int, int] | None:
    """Where the text between the survey markers starts and ends in ``text`` (None: no markers)."""
    start = README_START.search(text)
    end = text.find(README_END, start.end()) if start else -1
    return None if start is None or end < 0 else (start.end(), end)


def readme_shown(readme: Path) -> str | None:
    """What ``readme`` holds between its survey markers (None: no markers)."""
    text = readme.read_text(encoding="utf-8")
    found = _between_markers(text)
    return None if found is None else text[found[0] : found[1]]


def write_readme(readme: Path, path: Path = SURVEY) -> None:
    """Put :func:`readme_paragraph` between ``readme``'s ``<!-- survey:start ... -->`` and ``<!-- survey:end -->``."""
    text = readme.read_text(encoding="utf-8")
    found = _between_markers(text)
    if found is None:
        raise SurveyError(
            f"{readme}: no <!-- survey:start --> / <!-- survey:end --> markers to put the paragraph between"
        )
    readme.write_text(text[: found[0]] + readme_paragraph(path) + text[found[1] :], encoding="utf-8")


def to_html(path: Path = SURVEY) -> str:
    """The survey as an HTML fragment (a ``section``), the same prose and rows as ``to_markdown``,
    each table in a box of its own that scrolls sideways on a narrow screen."""
    data = load(path, versions=None)
    head, packages = data["survey"], data["package"]
    esc = html.escape
    rows = "\n".join(
        f"<tr><td>{esc(p['registry'])}</td><td><code>{esc(p['name'])}</code></td><td>{esc(p['version'])}</td>"
        f"<td>{esc(', '.join(p['balances']) or 'nothing')}</td><td>{esc(p['delegates'])}</td>"
        f"<td>{'yes' if p['judged'] else 'no'}</td><td>{esc(p['why'])}</td>"
        f"<td>{'<br>'.join(f'<code>{esc(where)}</code>' for where in cited_places(p))}</td></tr>"
        for p in _ordered(packages)
    )
    counts = "\n".join(
        f'<tr><td>{registry}</td><td class="r">{total}</td><td class="r">{own}</td><td class="r">{judged}</td></tr>'
        for registry, (total, own, judged) in _counts(packages).items()
    )
    return (
        f'<section id="survey">\n<h2>{esc(TITLE)}</h2>\n'
        f"<p>{esc(INTRO.format(date=head['date']))}</p>\n"
        '<div class="scroll"><table>\n<thead><tr><th>registry</th><th>packages</th><th>balance in their own code</th>'
        f"<th>judged here</th></tr></thead>\n<tbody>\n{counts}\n</tbody>\n</table></div>\n"
        '<div class="scroll"><table class="survey">\n<thead><tr><th>registry</th><th>package</th><th>newest</th>'
        "<th>balances in its own code</th><th>delegates</th><th>judged</th><th>why</th><th>read in</th></tr></thead>\n"
        f"<tbody>\n{rows}\n</tbody>\n</table></div>\n"
        + "".join(f"<p>{esc(line)}</p>\n" for line in _enumerated(head))
        + f"<p><code>{REFRESH}</code> {esc(ASKS)}</p>\n</section>\n"
    )


# -- refresh (network) ---------------------------------------------------------------------------


def _pypi_newest(name: str) -> str | None:
    try:
        with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=60) as answer:
            return json.load(answer)["info"]["version"]
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def _npm_newest(name: str) -> str | None:
    done = subprocess.run(
        ["npm", "view", name, "version", "--json"], check=False, capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        if "E404" in done.stdout + done.stderr:
            return None
        raise RuntimeError(f"npm view {name}: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout)


#: what go says of a module or version the proxy does not serve (404 or 410; some proxies answer 403)
UNSERVED = re.compile(r"403 Forbidden|404 Not Found|410 Gone|no matching versions|unknown revision")


def _go(module: str, version: str, *args: str) -> dict:
    """What ``go ARGS MODULE@VERSION`` prints as JSON, run in an empty temporary folder (no go.mod
    of the clone's) with the module mode on and no toolchain download; go's error as a SurveyError."""
    where = f"go {module} {version}: go {' '.join(args)}"
    if shutil.which("go") is None:
        raise SurveyError(f"{where}: go is not on PATH (https://go.dev/dl/)")
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            ["go", *args, f"{module}@{version}"],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    try:
        found = json.loads(done.stdout)
    except json.JSONDecodeError:
        found = {}
    error = found.get("Error") or (done.returncode and (done.stderr or f"exit status {done.returncode}"))
    if error:
        raise SurveyError(f"{where}: {' '.join(str(error).split())}")
    return found


def _go_newest(module: str) -> str | None:
    """The version ``MODULE@latest`` resolves to; None when the proxy does not serve the module."""
    try:
        return _go(module, "latest", "list", "-m", "-json")["Version"]
    except SurveyError as error:
        if UNSERVED.search(str(error)):
            return None
        raise


NEWEST = {"pypi": _pypi_newest, "npm": _npm_newest, "go": _go_newest}


def _listed_names(spec: str) -> tuple[str, list[str]]:
    registry, _, file = spec.partition(":") if spec.split(":", 1)[0] in REGISTRIES else ("pypi", "", spec)
    try:
        text = Path(file).read_text(encoding="utf-8")
    except OSError as error:
        raise SystemExit(f"clients/survey.py: --names {spec}: {error}") from error
    return registry, [line.split("\t", 1)[0].strip() for line in text.splitlines() if line.strip()]


def refresh(path: Path = SURVEY, names: list[str] | None = None, newest=NEWEST, out=sys.stdout) -> int:
    """Print every surveyed package whose newest version moved or vanished, and every listed name
    named for RocketMQ that the survey lacks; 1 when there is any, else 0."""
    packages = load(path)["package"]
    known = {(p["registry"], p["name"].lower()) for p in packages}
    found = 0
    for p in packages:
        now = newest[p["registry"]](p["name"])
        if now != p["version"]:
            found += 1
            print(
                f"{p['registry']} {p['name']}: surveyed {p['version']}, now {now or 'gone from the registry'}", file=out
            )
    for spec in names or []:
        registry, listed = _listed_names(spec)
        for name in sorted({n for n in listed if NAMED.search(n)}):
            if (registry, name.lower()) in known:
                continue
            now = newest[registry](name)
            if now is not None:
                found += 1
                print(f"{registry} {name} {now}: named for RocketMQ, not in the survey", file=out)
    print(f"{found} to update" if found else "the survey is current", file=out)
    return 1 if found else 0


# -- evidence (network) ---------------------------------------------------------------------------


def _unpack(archive: Path, into: Path) -> None:
    """``archive``'s files under ``into``: a wheel as it is, an sdist or an npm tarball without its one top folder."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as opened:
            opened.extractall(into)
    else:
        with tarfile.open(archive) as opened:
            if hasattr(tarfile, "data_filter"):
                opened.extractall(into, filter="data")
            else:  # pragma: no cover - Pythons before the extraction filters
                opened.extractall(into)
    tops = list(into.iterdir())
    if archive.suffix != ".whl" and len(tops) == 1 and tops[0].is_dir():
        for child in list(tops[0].iterdir()):
            child.rename(into / child.name)
        tops[0].rmdir()


#: the command of each registry's client that downloads NAME at VERSION, an archive, into DEST
PACK = {
    "pypi": lambda name, version, dest: [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--quiet",
        "--dest",
        dest,
        f"{name}=={version}",
    ],
    "npm": lambda name, version, dest: ["npm", "pack", "--silent", f"{name}@{version}", "--pack-destination", dest],
}


def _packed(entry: dict, into: Path) -> None:
    """``entry``'s archive, downloaded by its registry's client (``PACK``), unpacked into ``into``."""
    name, version = entry["name"], entry["version"]
    download = into.with_name("download")
    download.mkdir()
    command = PACK[entry["registry"]](name, version, str(download))
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=600)
    archives = list(download.iterdir())
    if done.returncode != 0 or len(archives) != 1:
        raise SurveyError(
            f"{entry['registry']} {name} {version}: {' '.join(command[:4])} ... gave {len(archives)} file(s): "
            f"{done.stderr.strip()[-300:]}"
        )
    into.mkdir()
    _unpack(archives[0], into)


def _module(entry: dict, into: Path) -> None:
    """``entry``'s Go module as ``go mod download`` leaves it in Go's module cache (read-only),
    copied into ``into`` file by file (writable): its paths are the module's, from its root."""
    root = Path(_go(entry["name"], entry["version"], "mod", "download", "-json")["Dir"])
    for source in sorted(root.rglob("*")):
        if source.is_file():
            target = into / source.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


#: how each registry's files reach the survey's cache
DOWNLOAD = {"pypi": _packed, "npm": _packed, "go": _module}


def fetch(entry: dict, cache: Path = CACHE) -> Path:
    """The files of ``entry``'s package at its surveyed version, as the registry's ordinary client
    downloads it (``pip download --no-deps``, ``npm pack``, ``go mod download``), kept once under ``cache``."""
    name, version = entry["name"], entry["version"]
    files = cache / entry["registry"] / f"{name.replace('/', '+')}-{version}" / "files"
    if files.is_dir():
        return files
    files.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=files.parent) as work:
        unpacked = Path(work) / "files"
        DOWNLOAD[entry["registry"]](entry, unpacked)
        try:
            unpacked.rename(files)
        except OSError:  # another process unpacked it first
            if not files.is_dir():
                raise
    return files


def cited_problems(entry: dict, files: Path) -> list[str]:
    """What in ``entry``'s evidence its package's ``files`` do not show: a file it lacks, lines past
    its end, lines without the word cited. Empty when every citation holds."""
    problems = []
    for cited in entry["evidence"]:
        found = EVIDENCE.fullmatch(cited)
        assert found is not None, cited  # load() refuses any other
        where = f"{entry['registry']} {entry['name']} {entry['version']}: evidence {cited!r}"
        path = files / found["file"]
        if not path.is_file():
            problems.append(f"{where}: the package has no file {found['file']}")
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        first, last = int(found["first"]), int(found["last"] or found["first"])
        if last > len(lines):
            problems.append(f"{where}: {found['file']} has {len(lines)} lines")
        elif found["shows"] not in "\n".join(lines[first - 1 : last]):
            problems.append(f"{where}: lines {first}-{last} do not hold {found['shows']!r}")
    return problems


def check_evidence(path: Path = SURVEY, cache: Path = CACHE, out=sys.stdout) -> int:
    """Print every citation the surveyed packages' files do not bear out; 1 when there is any."""
    problems = [problem for entry in load(path)["package"] for problem in cited_problems(entry, fetch(entry, cache))]
    for problem in problems:
        print(problem, file=out)
    print(f"{len(problems)} citation(s) not borne out" if problems else "every citation holds", file=out)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--survey", type=Path, default=SURVEY)
    parser.add_argument("--html", action="store_true", help="the HTML fragment instead of Markdown")
    parser.add_argument("--readme", type=Path, help="rewrite this README's paragraph between its survey: markers")
    parser.add_argument("--refresh", action="store_true", help="ask the registries (network)")
    parser.add_argument(
        "--evidence", action="store_true", help="download every package and check what it cites (network)"
    )
    parser.add_argument(
        "--names",
        action="append",
        default=[],
        metavar="[REGISTRY:]FILE",
        help="with --refresh: a list of package names to look for new RocketMQ ones in",
    )
    args = parser.parse_args(argv)
    try:
        if args.refresh:
            return refresh(args.survey, args.names)
        if args.evidence:
            return check_evidence(args.survey)
        if args.readme is not None:
            write_readme(args.readme, args.survey)
            return 0
        sys.stdout.write(to_html(args.survey) if args.html else to_markdown(args.survey))
    except SurveyError as error:
        print(f"clients/survey.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
