"""The trend of the real clients: each judged client at every version of its ``trend`` list
(``clients/versions.toml``), per family: how many golden cases differ in each version, which
cases began or stopped differing at each version step, and the version that brought (or
removed) each divergence class. Writes docs/clients-trend.md, .html and .json.

    python clients/trend.py --home DIR [--out docs]
    python clients/trend.py --home DIR --check docs [--sample [SEED]]

Run from the repository's root (``tox -e clients-trend`` does). Each version is installed into a
folder of its own under ``DIR`` (``pip install --target``, ``npm install --prefix``, a Go
client's harness built there by ``clients/go/build.py --home``; a folder that already holds it
is kept) and replayed through the client's harness with ``RMQ_CLIENT_HOME`` naming that folder: a
harness honours it by loading the client from there (see the harnesses' headers). A version
that no longer installs or builds is a row saying so (its installer's last line); only the
pinned version's failure stops the trend. A harness that says another version than the one
installed is refused. The output
carries no clock time, so it changes only with what it reports.

``--check DIR`` writes nothing: it holds the versions it ran to the trend committed in ``DIR``
(each one's row per family, the steps between them, what a version serving nothing said) and
the committed page and HTML to what that trend renders. ``--sample SEED`` runs, of each client,
two neighbouring versions that the seed picks (a client of one version, that one): the trend of
all of them is ``tox -e clients-trend``'s; CI checks a sample that changes from run to run.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to 3.10
    import tomli as tomllib

from pytest_rmq_conformance.engine.divergence import SEVERITY
from pytest_rmq_conformance.matrix.render import KINDS

HERE = Path(__file__).resolve().parent
VERSIONS = HERE / "versions.toml"
RELEASE = "5.3.3"  # where a table without releases is judged
FIRST = 5  # case ids shown per class and step
#: seconds a harness has per request: the suite's 5 s, met by every version alone, is missed on a
#: loaded machine by a 65536-queue route (a no-answer that is the machine's, not the client's)
TIMEOUT = 60.0
MINIMUM = 5  # versions a trend holds, unless the registry has fewer (``trend_short`` says so)
NOT_SERVED = "not-served"  # a case of a family the version's harness does not serve
REGISTRIES = ("npm", "pypi", "go", "maven")  # a maven table is the control row: no trend
SAMPLE = 2  # neighbouring versions of each client a --sample runs (the step between them with them)
_VERSION = re.compile(r"^v?\d+(\.\d+)*(-[0-9A-Za-z.-]+)?$")  # 5.0.1, 0.0.9-beta, Go's v2.1.0-rc3
#: a Go pseudo-version (a commit, not a release): v2.1.3-0.20251226070945-2173d070fd1b
PSEUDO = re.compile(r"\d{14}-[0-9a-f]{12}$")


class TrendError(ValueError):
    """versions.toml or a replay that the trend cannot use."""


def version_key(version: str) -> tuple[tuple[int, ...], int, str]:
    """The order of versions: by number, a pre-release (``-beta``, a Go pseudo-version) before its release."""
    number, _, pre = version.removeprefix("v").partition("-")
    return tuple(int(part) for part in number.split(".")), 0 if pre else 1, pre


# -- versions.toml --------------------------------------------------------------------------------


def problems(tables: Mapping[str, Any], source: str = "clients/versions.toml") -> list[str]:
    """What is wrong with the clients' tables for the trend (empty when nothing): a table with a
    ``trend`` (the others are not in it) lists versions oldest first, without repeats, ending at
    ``pinned``, at least five unless ``trend_short`` says why; ``yanked`` only names versions of it."""
    found = []
    for name, entry in tables.items():
        where = f"{source} [{name}]"
        if not isinstance(entry, dict):
            found.append(f"{where}: not a table")
            continue
        if entry.get("registry") not in REGISTRIES:
            found.append(f"{where}: registry must be one of {', '.join(REGISTRIES)}, not {entry.get('registry')!r}")
        if not isinstance(entry.get("harness"), str) or not entry["harness"].startswith("exec:"):
            found.append(f"{where}: harness must be an exec: spec")
        releases = entry.get("releases", [RELEASE])
        if not isinstance(releases, list) or not releases or not all(isinstance(r, str) and r for r in releases):
            found.append(f"{where}: releases must be a non-empty list of RocketMQ releases, not {releases!r}")
        if "trend" not in entry:
            continue
        trend = entry["trend"]
        if not isinstance(trend, list) or not trend or not all(isinstance(v, str) and _VERSION.match(v) for v in trend):
            found.append(f'{where}: trend must be a non-empty list of versions such as "5.0.1", not {trend!r}')
            continue
        keys = [version_key(v) for v in trend]
        if keys != sorted(set(keys)):
            found.append(f"{where}: trend must be oldest first without repeats: {trend}")
        # a Go module's newest commits (pseudo-versions) may follow its newest release, the pin
        released = [v for v in trend if not (entry.get("registry") == "go" and PSEUDO.search(v))] or trend
        if released[-1] != entry.get("pinned"):
            found.append(
                f"{where}: trend must end at the pinned version {entry.get('pinned')!r} (a Go module's "
                f"pseudo-versions after it), not {released[-1]!r}"
            )
        short = entry.get("trend_short")
        if len(trend) < MINIMUM and not (isinstance(short, str) and short.strip()):
            found.append(
                f"{where}: trend has {len(trend)} version(s), fewer than {MINIMUM}: add the older ones, "
                "or say in trend_short why the registry has no more"
            )
        yanked = entry.get("yanked", [])
        if not isinstance(yanked, list) or not set(yanked) <= set(trend):
            found.append(f"{where}: yanked must list versions of trend, not {yanked!r}")
    return found


def load_tables(path: Path = VERSIONS) -> dict[str, Any]:
    try:
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TrendError(f"{path}: {exc}") from exc
    wrong = problems(tables, str(path))
    if wrong:
        raise TrendError("; ".join(wrong))
    return tables


# -- installing and replaying ---------------------------------------------------------------------


def install(name: str, registry: str, version: str, root: Path, log: Callable[[str], None]) -> Path:
    """The folder ``version`` of ``name`` is installed in, with its dependencies (kept when a
    previous run installed it there)."""
    home = root / name / version
    marker = home / ".rmq-trend"
    wanted = f"{registry} {name}=={version}\n"
    if marker.is_file() and marker.read_text(encoding="utf-8") == wanted:
        return home
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    if registry == "go":  # the harness built against the version, in home (clients/go/harness.py runs it)
        command = [sys.executable, str(HERE / "go" / "build.py"), name, version, "--home", str(home)]
    elif registry == "pypi":
        command = [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-input",
            "--target",
            str(home),
            f"{name}=={version}",
        ]
    else:
        command = [
            "npm",
            "install",
            "--prefix",
            str(home),
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            f"{name}@{version}",
        ]
    log(f"install {name} {version}: {' '.join(command)}")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise TrendError(f"installing {name} {version} failed ({' '.join(command)}):\n{done.stdout}{done.stderr}")
    marker.write_text(wanted, encoding="utf-8")
    return home


def replay(
    spec: str, home: Path, releases: Sequence[str], log: Callable[[str], None]
) -> tuple[str, list[str], dict[str, dict[str, str]]]:
    """The version the harness says, the golden runs it was compared with, and what each golden
    case came to, per family the harness serves (``FAMILY at RELEASE`` when there are several
    releases)."""
    from pytest_rmq_conformance.matrix.cells import build_matrix

    outcomes: dict[str, dict[str, str]] = {}

    def heard(_spec: str, release: str, family: str, case: str, came_to: str) -> None:
        key = family if len(releases) == 1 else f"{family} at {release}"
        outcomes.setdefault(key, {})[case] = came_to

    # the harness's environment: the install, and one hash seed (a client that routes a group by
    # Python's hash() answers the same from run to run, as in the report's tox -e clients)
    wanted = {"RMQ_CLIENT_HOME": str(home), "PYTHONHASHSEED": "0"}
    previous = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        doc = build_matrix([spec], list(releases), checks=["golden"], timeout=TIMEOUT, progress=log, on_case=heard)
    finally:
        for name, value in previous.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
    row = doc["implementations"][0]
    errors = [cell.get("reason", "") for cell in row["cells"] if cell["status"] == "error"]
    if errors:
        raise TrendError(f"{spec} with RMQ_CLIENT_HOME={home} did not run: {errors[0]}")
    runs = [run.get("client") or f"RocketMQ {run['rocketmq']}" for run in doc["goldenRuns"]]
    return row["version"], runs, outcomes


def why_unserved(spec: str, home: Path) -> str:
    """What a harness that served no family says on stderr at its hello (its last line)."""
    environment = {**os.environ, "RMQ_CLIENT_HOME": str(home), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        shlex.split(spec.removeprefix("exec:")),
        input='{"cmd": "hello"}\n{"cmd": "bye"}\n',
        capture_output=True,
        text=True,
        env=environment,
        timeout=TIMEOUT,
        check=False,
    )
    # the install's folder differs from machine to machine: named as the variable that holds it
    lines = [line.strip().replace(str(home), "$RMQ_CLIENT_HOME") for line in done.stderr.splitlines() if line.strip()]
    return lines[-1] if lines else "its hello names no family"


def chosen(tables: Mapping[str, Any], only: Sequence[str] = (), seed: int | None = None) -> dict[str, list[str]]:
    """The versions to run, per client with a trend (those of ``only`` when it names some): every
    version, or with a ``seed``, :data:`SAMPLE` neighbouring ones that it picks."""
    draw = random.Random(seed)
    out = {}
    for name, entry in tables.items():
        if (only and name not in only) or "trend" not in entry:
            continue
        versions = list(entry["trend"])
        if seed is not None:
            first = draw.randrange(max(1, len(versions) - SAMPLE + 1))
            versions = versions[first : first + SAMPLE]
        out[name] = versions
    return out


def collect(
    tables: Mapping[str, Any], root: Path, log: Callable[[str], None], runs: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """Install and replay the versions ``runs`` names of each client (:func:`chosen`): the runs
    :func:`trend` reads."""
    clients, compared = [], set()
    for name, wanted in runs.items():
        entry = tables[name]
        versions, releases = [], entry.get("releases", [RELEASE])
        for version in wanted:
            started = time.monotonic()
            try:
                home = install(name, entry["registry"], version, root, log)
            except TrendError as exc:
                if version == entry["pinned"]:  # the report's version: the trend cannot stand without it
                    raise
                # a version that no longer installs or builds is a row that says so, not a lost trend
                said = str(exc).strip().splitlines()[-1].strip()
                log(f"{name} {version}: does not install: {said}")
                versions.append({"version": version, "families": {}, "unserved": f"does not install: {said}"})
                continue
            installed = time.monotonic()
            said, golden, outcomes = replay(entry["harness"], home, releases, log)
            log(f"{name} {version}: install {installed - started:.1f} s, replay {time.monotonic() - installed:.1f} s")
            if said != version:
                raise TrendError(
                    f"{entry['harness']} with RMQ_CLIENT_HOME={home} says {name} {said}, not {version}: "
                    "does the harness honour RMQ_CLIENT_HOME?"
                )
            compared.update(golden)
            entry_out: dict[str, Any] = {"version": version, "families": outcomes}
            if not outcomes:  # the harness served no family: what it said on stderr is why
                entry_out["unserved"] = why_unserved(entry["harness"], home)
            versions.append(entry_out)
        clients.append(
            {
                "name": name,
                "registry": entry["registry"],
                "harness": entry["harness"],
                "pinned": entry["pinned"],
                "yanked": entry.get("yanked", []),
                "note": entry.get("trend_short"),
                "releases": list(releases),
                "versions": versions,
            }
        )
    return {"comparedWith": ", ".join(sorted(compared)), "clients": clients}


# -- the trend, from the runs ---------------------------------------------------------------------


def _diverges(came_to: str) -> bool:
    return came_to in SEVERITY


def _groups(
    pairs: Sequence[tuple[str, str, str]], key: Callable[[str, str], tuple[str, ...]], names: Sequence[str]
) -> list[dict[str, Any]]:
    """Cases ``(case, before, after)`` grouped by ``key(before, after)`` (the fields ``names``):
    how many, and the first ids."""
    grouped: dict[tuple[str, ...], list[tuple[str, str, str]]] = {}
    for case, before, after in sorted(pairs):
        grouped.setdefault(key(before, after), []).append((case, before, after))
    order = {name: position for position, name in enumerate(SEVERITY)}
    out = []
    for group_key in sorted(grouped, key=lambda k: [order.get(part, len(order)) for part in k] + list(k)):
        members = grouped[group_key]
        entry: dict[str, Any] = dict(zip(names, group_key))
        entry["count"] = len(members)
        entry["cases"] = [case for case, _, _ in members[:FIRST]]
        out.append(entry)
    return out


def _step(before: Mapping[str, str], after: Mapping[str, str]) -> dict[str, Any]:
    """The cases that began to differ, stopped differing, or changed class between two versions."""
    cases = sorted(set(before) | set(after))
    pairs = [(case, before.get(case, NOT_SERVED), after.get(case, NOT_SERVED)) for case in cases]
    began = [(c, b, a) for c, b, a in pairs if _diverges(a) and not _diverges(b)]
    stopped = [(c, b, a) for c, b, a in pairs if _diverges(b) and not _diverges(a)]
    moved = [(c, b, a) for c, b, a in pairs if _diverges(a) and _diverges(b) and a != b]
    return {
        # began: grouped by the class they came to, "other" says what they were (pass, not-implemented, ...)
        "began": [
            dict(g, other=dict(sorted(Counter(b for c, b, a in began if a == g["class"]).items())))
            for g in _groups(began, lambda b, a: (a,), ["class"])
        ],
        # stopped: grouped by the class they had, "other" says what they came to
        "stopped": [
            dict(g, other=dict(sorted(Counter(a for c, b, a in stopped if b == g["class"]).items())))
            for g in _groups(stopped, lambda b, a: (b,), ["class"])
        ],
        "moved": _groups(moved, lambda b, a: (b, a), ["from", "to"]),
    }


def _row(version: str, outcomes: Mapping[str, str] | None) -> dict[str, Any]:
    if outcomes is None:
        return {"version": version, "served": False}
    counts = Counter(outcomes.values())
    return {
        "version": version,
        "served": True,
        "cases": len(outcomes),
        "passed": counts["pass"],
        "differ": sum(counts[name] for name in SEVERITY),
        "classes": {name: counts[name] for name in SEVERITY},
        "notImplemented": counts["not-implemented"],
        "notRun": counts["not-run"],
    }


def _history(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each divergence class the family ever shows: the versions that brought it (its count went
    from none to some, among the versions that serve the family) and that removed it."""
    served = [row for row in rows if row["served"]]
    out = []
    for name in SEVERITY:
        events, had = [], 0
        for position, row in enumerate(served):
            now = row["classes"][name]
            if now and not had:
                events.append({"version": row["version"], "event": "brought", "firstJudged": position == 0})
            elif had and not now:
                events.append({"version": row["version"], "event": "removed"})
            had = now
        if events:
            out.append({"class": name, "events": events})
    return out


def trend(runs: Mapping[str, Any]) -> dict[str, Any]:
    """The trend document (docs/clients-trend.json) from the runs :func:`collect` makes: per
    client and family, a row per version, the version steps, and each class's history."""
    clients = []
    for client in runs["clients"]:
        versions = [entry["version"] for entry in client["versions"]]
        keys = [version_key(v) for v in versions]
        if keys != sorted(set(keys)):
            raise TrendError(f"{client['name']}: versions must be oldest first without repeats: {versions}")
        names = sorted({family for entry in client["versions"] for family in entry["families"]})
        families = []
        for family in names:
            outcomes = [entry["families"].get(family) for entry in client["versions"]]
            rows = [_row(version, found) for version, found in zip(versions, outcomes)]
            steps = [
                {"from": versions[i], "to": versions[i + 1], **_step(outcomes[i] or {}, outcomes[i + 1] or {})}
                for i in range(len(versions) - 1)
            ]
            families.append({"family": family, "rows": rows, "classes": _history(rows), "steps": steps})
        clients.append(
            {key: client[key] for key in ("name", "registry", "harness", "pinned", "yanked", "note", "releases")}
            | {"versions": versions, "families": families}
            | {
                "unserved": {
                    entry["version"]: entry["unserved"] for entry in client["versions"] if entry.get("unserved")
                }
            }
        )
    return {"trendVersion": 1, "comparedWith": runs["comparedWith"], "clients": clients}


# -- checking the committed trend -----------------------------------------------------------------

#: what a client's entry of the trend carries from versions.toml, compared as it is
_ENTRY = ("registry", "harness", "pinned", "yanked", "note", "releases")


def differences(ran: Mapping[str, Any], committed: Mapping[str, Any], tables: Mapping[str, Any]) -> list[str]:
    """Where the trend of the versions that ran (:func:`trend` of a :func:`collect`) disagrees
    with the ``committed`` one: a client's versions.toml entry, each version's row per family,
    the step between neighbouring versions that ran, what a version serving nothing said.
    Empty when they agree."""
    found = []
    had_clients = {client["name"]: client for client in committed["clients"]}
    for client in ran["clients"]:
        name = client["name"]
        had = had_clients.get(name)
        if had is None:
            found.append(f"{name}: not in the committed trend")
            continue
        if had["versions"] != tables[name]["trend"]:
            found.append(
                f"{name}: the committed trend has versions {had['versions']}, versions.toml {tables[name]['trend']}"
            )
            continue
        found += [
            f"{name}: {key} is {client[key]!r}, the committed trend says {had[key]!r}"
            for key in _ENTRY
            if client[key] != had[key]
        ]
        ran_families = {family["family"]: family for family in client["families"]}
        found += [
            f"{name}: {family} is served, the committed trend has no such family"
            for family in sorted(set(ran_families) - {f["family"] for f in had["families"]})
        ]
        for family in had["families"]:
            ours = ran_families.get(family["family"], {"rows": [], "steps": []})  # served by none that ran
            rows = {row["version"]: row for row in ours["rows"]}
            for row in family["rows"]:
                now = rows.get(row["version"], _row(row["version"], None))
                if row["version"] in client["versions"] and now != row:
                    found.append(
                        f"{name} {row['version']} {family['family']}: the committed row is {json.dumps(row)}, "
                        f"this run's {json.dumps(now)}"
                    )
            steps = {(step["from"], step["to"]): step for step in ours["steps"]}
            for step in family["steps"]:
                now = steps.get((step["from"], step["to"]), {"from": step["from"], "to": step["to"], **_step({}, {})})
                if {step["from"], step["to"]} <= set(client["versions"]) and now != step:
                    found.append(
                        f"{name} {step['from']} -> {step['to']} {family['family']}: the committed step is "
                        f"{json.dumps(step)}, this run's {json.dumps(now)}"
                    )
        for version in client["versions"]:
            if client["unserved"].get(version) != had["unserved"].get(version):
                found.append(
                    f"{name} {version}: serves nothing, saying {client['unserved'].get(version)!r}; "
                    f"the committed trend says {had['unserved'].get(version)!r}"
                )
    return found


def check(ran: Mapping[str, Any], folder: Path, tables: Mapping[str, Any]) -> list[str]:
    """What is wrong with the trend committed in ``folder`` (empty when nothing): the versions
    that ran disagree with its .json (:func:`differences`), or its .md and .html are not what the
    .json renders."""
    try:
        committed = json.loads((folder / "clients-trend.json").read_text(encoding="utf-8"))
        pages = {suffix: (folder / f"clients-trend.{suffix}").read_text(encoding="utf-8") for suffix in ("md", "html")}
    except (OSError, ValueError) as exc:
        raise TrendError(f"the committed trend: {exc}") from exc
    found = differences(ran, committed, tables)
    for suffix, render in (("md", to_markdown), ("html", to_html)):
        if render(committed) != pages[suffix]:
            found.append(f"{folder / f'clients-trend.{suffix}'}: not what {folder / 'clients-trend.json'} renders")
    return found


# -- writing --------------------------------------------------------------------------------------


def _label(name: str) -> str:
    return KINDS[name].label if name in KINDS else name.replace("-", " ")


def _verdict(row: Mapping[str, Any]) -> str:
    """The row's kind: its worst class, pass, not implemented, or not served."""
    if not row["served"]:
        return "not-implemented"
    for name in SEVERITY:
        if row["classes"][name]:
            return name
    if row["passed"]:
        return "pass"
    return "not-implemented" if row["notImplemented"] else "not-run"


def _summary_text(row: Mapping[str, Any]) -> str:
    """A version's family in a few words: its mark, how many of how many cases differ, by class."""
    if not row["served"]:
        return f"{KINDS['not-implemented'].mark} not served"
    kind = _verdict(row)
    classes = ", ".join(f"{row['classes'][name]} {_label(name)}" for name in SEVERITY if row["classes"][name])
    text = f"{KINDS[kind].mark} {row['differ']} of {row['cases']} differ" + (f": {classes}" if classes else "")
    skipped = row["notImplemented"] + row["notRun"]
    return text + (f" ({skipped} not run or not implemented)" if skipped else "")


def _verdict_text(row: Mapping[str, Any]) -> str:
    kind = _verdict(row)
    if not row["served"]:
        return f"{KINDS[kind].mark} not served"
    return f"{KINDS[kind].mark} {_label(kind)}"


def _events_text(events: Sequence[Mapping[str, Any]]) -> str:
    words = []
    for position, event in enumerate(events):
        if event["event"] == "removed":
            words.append(f"removed by {event['version']}")
        elif event.get("firstJudged"):
            words.append(f"there since {event['version']}, the first version judged on it")
        else:
            words.append(f"{'brought' if position == 0 else 'back'} by {event['version']}")
    return ", ".join(words)


def _other_text(other: Mapping[str, int], was: bool) -> str:
    parts = [f"{count} {_label(name)}" for name, count in other.items()]
    return f" ({'were' if was else 'now'}: {', '.join(parts)})" if parts else ""


def _group_text(group: Mapping[str, Any], fmt: Callable[[str], str], was: bool | None) -> str:
    head = (
        f"{group['count']} {_label(group['class'])}"
        if "class" in group
        else f"{group['count']} {_label(group['from'])} → {_label(group['to'])}"
    )
    more = ", …" if group["count"] > len(group["cases"]) else ""
    other = (
        _other_text(group.get("other", {}), was) if was is not None and set(group.get("other", {})) != {"pass"} else ""
    )
    return f"{head}{other}: {', '.join(fmt(case) for case in group['cases'])}{more}"


def _split_steps(steps: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The version steps where some case began, stopped or changed class, and the others."""
    changed = [step for step in steps if step["began"] or step["stopped"] or step["moved"]]
    return changed, [step for step in steps if step not in changed]


def _unchanged_text(unchanged: Sequence[Mapping[str, Any]], others: bool) -> str:
    listed = ", ".join(f"{step['from']} → {step['to']}" for step in unchanged)
    return f"{'At the other steps' if others else 'At every step'} no case changed: {listed}."


def _head(client: Mapping[str, Any]) -> str:
    yanked = f"; yanked on the registry: {', '.join(client['yanked'])}" if client["yanked"] else ""
    note = f" ({client['note']})" if client.get("note") else ""
    return (
        f"{client['registry']}, {len(client['versions'])} version(s): {', '.join(client['versions'])}{note}{yanked}; "
        f"pinned {client['pinned']} (the report, docs/clients.md); judged at RocketMQ {', '.join(client['releases'])}; "
        f"harness `{client['harness']}`"
    )


def _intro(doc: Mapping[str, Any]) -> str:
    return (
        f"Each version in a client's `trend` list (clients/versions.toml), installed from its registry and "
        f"replayed through the client's harness (`RMQ_CLIENT_HOME` names the install) against the golden vectors "
        f"of {doc['comparedWith']}. Per family: a row per version, the version that "
        f"brought (or removed) each divergence class, and at each version step the cases that began or stopped "
        f"differing (the first {FIRST} ids of each class). `tox -e clients-trend` regenerates it."
    )


def to_markdown(doc: Mapping[str, Any]) -> str:
    lines = ["# The real clients across their versions", "", _intro(doc), ""]
    classes_head = " | ".join(_label(name) for name in SEVERITY)
    for client in doc["clients"]:
        lines += [f"## {client['name']}", "", _head(client), ""]
        lines += [
            "| version | " + " | ".join(family["family"] for family in client["families"]) + " |",
            "| --- " * (1 + len(client["families"])) + "|",
        ]
        for position, version in enumerate(client["versions"]):
            yanked = " (yanked)" if version in client["yanked"] else ""
            cells = [_summary_text(family["rows"][position]) for family in client["families"]]
            lines.append(f"| {version}{yanked} | " + " | ".join(cells) + " |")
        lines.append("")
        if client["unserved"]:
            lines += ["Versions that serve no family, as their harness says:", ""]
            lines += [f"- {version}: {why}" for version, why in client["unserved"].items()]
            lines.append("")
        for family in client["families"]:
            lines += [f"### {client['name']}: {family['family']}", ""]
            lines += [
                f"| version | verdict | cases | pass | differ | {classes_head} | not implemented | not run |",
                "| --- " * (7 + len(SEVERITY)) + "|",
            ]
            for row in family["rows"]:
                version = row["version"] + (" (yanked)" if row["version"] in client["yanked"] else "")
                if not row["served"]:
                    lines.append(f"| {version} | {_verdict_text(row)} |" + "  |" * (5 + len(SEVERITY)))
                    continue
                counts = " | ".join(str(row["classes"][name]) for name in SEVERITY)
                lines.append(
                    f"| {version} | {_verdict_text(row)} | {row['cases']} | {row['passed']} | {row['differ']} | "
                    f"{counts} | {row['notImplemented']} | {row['notRun']} |"
                )
            lines.append("")
            if family["classes"]:
                lines += ["Each divergence class, by the versions that brought and removed it:", ""]
                lines += [f"- {_label(item['class'])}: {_events_text(item['events'])}" for item in family["classes"]]
                lines.append("")
            else:
                lines += ["No version differs from Java here.", ""]
            changed, unchanged = _split_steps(family["steps"])
            if changed:
                lines += ["| step | began to differ | stopped differing | changed class |", "| --- | --- | --- | --- |"]
                code = lambda case: f"`{case}`"
                for step in changed:
                    cells = [
                        "<br>".join(_group_text(group, code, was) for group in step[part]) or "—"
                        for part, was in (("began", True), ("stopped", False), ("moved", None))
                    ]
                    lines.append(f"| {step['from']} → {step['to']} | " + " | ".join(cells) + " |")
                lines.append("")
            if unchanged:
                lines += [_unchanged_text(unchanged, bool(changed)), ""]
    return "\n".join(lines)


_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem; color: #212121; max-width: 82rem; }
h1 { font-size: 1.4rem; margin: 0 0 .4rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .3rem; }
h3 { font-size: 1rem; margin: 1.4rem 0 .4rem; }
p.meta { color: #616161; font-size: .88rem; margin: .2rem 0 .6rem; }
table { border-collapse: collapse; font-size: .88rem; margin: .3rem 0 .6rem; }
th, td { border: 1px solid #e0e0e0; padding: .3rem .5rem; vertical-align: top; text-align: left; }
thead th { background: #f5f5f5; font-weight: 600; white-space: nowrap; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.zero { color: #bdbdbd; }
td.steps { font-size: .82rem; max-width: 30rem; }
td.step { white-space: nowrap; }
table.summary td { font-size: .85rem; }
td.steps div { margin: .1rem 0; }
code { font-size: .8rem; }
.mark { display: inline-block; min-width: 1.1em; font-weight: 700; }
.pass { background: #e8f5e9; color: #1b5e20; }
.wrong-queues { background: #ffebee; color: #b71c1c; }
.fault { background: #f3e5f5; color: #4a148c; }
.error-behaviour { background: #fff3e0; color: #bf360c; }
.counter-drift { background: #fffde7; color: #8d6e00; }
.not-implemented, .not-run { background: #fafafa; color: #757575; }
ul.classes { margin: .2rem 0; padding-left: 1.2rem; font-size: .9rem; }
"""


def _code(text: str) -> str:
    """Markdown's `code` as HTML."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", text)


def to_html(doc: Mapping[str, Any]) -> str:
    esc = html.escape
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>The real clients across their versions</title><style>{_STYLE}</style></head><body>",
        "<h1>The real clients across their versions</h1>",
        f'<p class="meta">{_code(esc(_intro(doc)))}</p>',
    ]
    code = lambda case: f"<code>{esc(case)}</code>"
    for client in doc["clients"]:
        parts += [f"<h2>{esc(client['name'])}</h2>", f'<p class="meta">{_code(esc(_head(client)))}</p>']
        summary = []
        for position, version in enumerate(client["versions"]):
            yanked = " <small>(yanked)</small>" if version in client["yanked"] else ""
            cells = "".join(
                f'<td class="{_verdict(family["rows"][position])}">{esc(_summary_text(family["rows"][position]))}</td>'
                for family in client["families"]
            )
            summary.append(f"<tr><td>{esc(version)}{yanked}</td>{cells}</tr>")
        heads = "".join(
            f'<th><a href="#{esc(client["name"])}-{esc(family["family"])}">{esc(family["family"])}</a></th>'
            for family in client["families"]
        )
        parts.append(
            f'<table class="summary"><thead><tr><th>version</th>{heads}</tr></thead><tbody>{"".join(summary)}</tbody></table>'
        )
        if client["unserved"]:
            items = "".join(f"<li>{esc(version)}: {esc(why)}</li>" for version, why in client["unserved"].items())
            parts.append(
                f'<p class="meta">Versions that serve no family, as their harness says:</p><ul class="classes">{items}</ul>'
            )
        for family in client["families"]:
            parts.append(f'<h3 id="{esc(client["name"])}-{esc(family["family"])}">{esc(family["family"])}</h3>')
            head = "".join(f"<th>{esc(name)}</th>" for name in ("version", "verdict", "cases", "pass", "differ"))
            head += "".join(f'<th class="{name}">{esc(_label(name))}</th>' for name in SEVERITY)
            head += "<th>not implemented</th><th>not run</th>"
            body = []
            for row in family["rows"]:
                version = esc(row["version"]) + (
                    " <small>(yanked)</small>" if row["version"] in client["yanked"] else ""
                )
                kind = _verdict(row)
                verdict = f'<td class="{kind}"><span class="mark">{esc(KINDS[kind].mark)}</span> {esc(_verdict_text(row)[2:])}</td>'
                if not row["served"]:
                    body.append(
                        f"<tr><td>{version}</td>{verdict}" + '<td class="zero"></td>' * (5 + len(SEVERITY)) + "</tr>"
                    )
                    continue
                numbers = [
                    row["cases"],
                    row["passed"],
                    row["differ"],
                    *(row["classes"][name] for name in SEVERITY),
                    row["notImplemented"],
                    row["notRun"],
                ]
                cells = "".join(f'<td class="n{" zero" if not n else ""}">{n}</td>' for n in numbers)
                body.append(f"<tr><td>{version}</td>{verdict}{cells}</tr>")
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
            if family["classes"]:
                items = "".join(
                    f'<li><span class="{esc(item["class"])}">{esc(_label(item["class"]))}</span>: '
                    f"{esc(_events_text(item['events']))}</li>"
                    for item in family["classes"]
                )
                parts.append(f'<ul class="classes">{items}</ul>')
            else:
                parts.append('<p class="meta">No version differs from Java here.</p>')
            changed, unchanged = _split_steps(family["steps"])
            if changed:
                rows = []
                for step in changed:
                    tds: list[str] = []
                    for part, was in (("began", True), ("stopped", False), ("moved", None)):
                        groups = step[part]
                        text = (
                            "".join(
                                f'<div><span class="{esc(g.get("class", g.get("to", "")))}">'
                                f"{_group_text(g, code, was)}</span></div>"
                                for g in groups
                            )
                            or "—"
                        )
                        tds.append(f'<td class="steps">{text}</td>')
                    rows.append(f'<tr><td class="step">{esc(step["from"])} → {esc(step["to"])}</td>{"".join(tds)}</tr>')
                parts.append(
                    "<table><thead><tr><th>step</th><th>began to differ</th><th>stopped differing</th>"
                    f"<th>changed class</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
                )
            if unchanged:
                parts.append(f'<p class="meta">{esc(_unchanged_text(unchanged, bool(changed)))}</p>')
    parts.append("</body></html>\n")
    return "".join(parts)


def write(doc: Mapping[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "clients-trend.md", out / "clients-trend.html", out / "clients-trend.json"]
    written[0].write_text(to_markdown(doc), encoding="utf-8")
    written[1].write_text(to_html(doc), encoding="utf-8")
    written[2].write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--home", type=Path, required=True, help="where each version is installed (a folder per version)"
    )
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument(
        "--client", action="append", default=[], help="only this client (repeatable; for trying one out)"
    )
    parser.add_argument(
        "--check",
        type=Path,
        metavar="DIR",
        help="write nothing: hold the versions that ran to the trend committed in DIR (exit 1 where they differ)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        nargs="?",
        const=-1,
        metavar="SEED",
        help=f"with --check: of each client, {SAMPLE} neighbouring versions that SEED picks (a new seed when none is given)",
    )
    args = parser.parse_args(argv)
    if args.sample is not None and args.check is None:
        parser.error("--sample runs part of the trend, which can only be checked: add --check DIR")
    log = lambda line: print(line, file=sys.stderr, flush=True)
    try:
        tables = load_tables()
        unknown = sorted(set(args.client) - set(tables))
        if unknown:
            raise TrendError(f"--client {', '.join(unknown)}: not a table of {VERSIONS}")
        seed = random.randrange(2**32) if args.sample == -1 else args.sample
        runs = chosen(tables, args.client, seed)
        if seed is not None:
            picked = "; ".join(f"{name} {', '.join(versions)}" for name, versions in runs.items())
            print(f"trend sample {seed}: {picked}", flush=True)
            print(f"replay: python clients/trend.py --home DIR --check {args.check} --sample {seed}", flush=True)
        doc = trend(collect(tables, args.home.resolve(), log, runs))
        if args.check is not None:
            found = check(doc, args.check, tables)
            for line in found:
                print(f"clients/trend.py: {line}", file=sys.stderr)
            ran = sum(len(versions) for versions in runs.values())
            print(f"trend check: {ran} versions of {len(runs)} clients against {args.check}: {len(found)} differences")
            return 1 if found else 0
    except TrendError as exc:
        print(f"clients/trend.py: {exc}", file=sys.stderr)
        return 1
    print("written: " + ", ".join(str(path) for path in write(doc, args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
