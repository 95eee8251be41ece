"""Internal: the producer sweep's report.

The producer sweep's report: ``summary.json`` as Markdown and a self-contained HTML page
(the blocks and renderers of :mod:`~pytest_rmq_conformance.pipeline.pages`), with three plots.

It answers the operators' question, "does ``sendLatencyFaultEnable`` help, and how did 5.3.3
change it?", in sentences whose every number comes from the summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_rmq_conformance.pipeline.pages import (
    Block,
    Heading,
    Image,
    Para,
    Table,
    html_of,
    markdown_of,
    span,
    write_pages,
)
from pytest_rmq_conformance.pipeline.producer.plots import (
    ISOLATION_PLOT,
    PATTERN_TITLES,
    RECOVERY_PLOT,
    SHARE_PLOT,
    draw,
    groups_of,
    is_reference,
    label,
    user_strategies,
)

__all__ = ["write_producer_report", "render_producer_markdown", "render_producer_html", "answer"]

TITLE = "Producer sweep: does sendLatencyFaultEnable help?"
MISSING = "–"
FAULTS = ("slow", "failing", "flapping", "route-refresh")
PATTERN_MEANING = {
    "healthy": "no fault: the control, where the 'degraded' broker is as healthy as the others",
    "slow": "the degraded broker answers every send, in {slow} ms instead of a few",
    "failing": "every send to the degraded broker fails at once (connection refused: isolation=true)",
    "flapping": "the degraded broker fails, then works, then fails, in periods of {flap} s",
    "route-refresh": "the degraded broker fails; partway through, the name server's route drops it "
    "and the producer takes a new publish info without it; it comes back at the first route poll "
    "(every 30 s) after recovery",
}
#: why a failing broker's share of first attempts is not round robin's, with latency fault tolerance off: each
#: retry advances the shared counter too (``1 / ((brokers - 1) * queues)`` at 4.9.8 for a broker failing throughout)
SKIPS_ITS_QUEUES = "each retry also advances the round-robin counter, past the broker's other queues"
TAKES_NEXT_TURN = "each retry also advances the round-robin counter, taking the next broker's turn"
DROPPED = ", and from the route refresh on it is not in the route at all"
GROUP_HEADERS = (
    "Release", "sendLatencyFaultEnable", "Scenarios", "Sends during the fault",
    "First attempt to the degraded broker", "Round robin's share", "Failed messages", "Attempts per message",
    "Latency per message (ms)", "Traffic back after recovery: median (s)", "p90 (s)", "max (s)", "Never back",
)  # fmt: skip


def _pct(value: float | None) -> str:
    return MISSING if value is None else f"{100 * value:.1f} %"


def _num(value: float | None, digits: int = 2) -> str:
    return MISSING if value is None else f"{value:.{digits}f}"


def _secs(ms: float | None) -> str:
    """Milliseconds as seconds, one decimal (none from 100 s on)."""
    if ms is None:
        return MISSING
    return f"{ms / 1000:.1f}" if ms < 100_000 else f"{ms / 1000:.0f}"


def _releases(summary: dict[str, Any]) -> list[str]:
    """The releases whose reference ports were swept."""
    return list(dict.fromkeys(c["release"] for c in summary["configurations"] if is_reference(c)))


def _patterns(summary: dict[str, Any]) -> list[str]:
    present = {g["pattern"] for g in summary["groups"]}
    return [p for p in summary["space"]["patterns"] if p in present]


def _per_release(summary: dict[str, Any], pattern: str, on: bool, show) -> str:
    """``"15.8 % (4.9.8, 5.3.3), 24.3 % (4.7.1)"``: each value with the releases that gave it,
    ``"(all releases)"`` when they agree."""
    groups = groups_of(summary, pattern)
    releases = [r for r in _releases(summary) if (r, on) in groups]
    by_value: dict[str, list[str]] = {}
    for release in releases:
        by_value.setdefault(show(groups[(release, on)]), []).append(release)
    if len(by_value) == 1 and len(releases) > 1:
        return f"{next(iter(by_value))} (all releases)"
    return ", ".join(f"{text} ({', '.join(names)})" for text, names in by_value.items())


def _both(summary: dict[str, Any], pattern: str, show) -> str:
    return f"off {_per_release(summary, pattern, False, show)}; on {_per_release(summary, pattern, True, show)}"


# ------------------------------------------------------------------------------ the answer


def _share(group: dict[str, Any]) -> str:
    return _pct(group["degraded_share"])


def _latency(group: dict[str, Any]) -> str:
    return f"{_num(group['latency_per_message_ms'], 1)} ms"


def _back(group: dict[str, Any]) -> str:
    return f"{_secs(group['returned_after_ms']['p50'])} s" if group["returned"] else "never"


def _fault_sentences(summary: dict[str, Any], pattern: str) -> str:
    groups = groups_of(summary, pattern)
    title = PATTERN_TITLES.get(pattern, pattern)
    parts = [f"{title[0].upper()}{title[1:]}. First attempts to the degraded broker during the fault: {_both(summary, pattern, _share)}."]
    off = [g for (_, on), g in groups.items()
           if not on and is_reference(g) and g["degraded_share"] is not None and g["uniform_share"]]
    if pattern != "slow" and off:
        share, uniform = sum(g["degraded_share"] for g in off) / len(off), off[0]["uniform_share"]
        dropped = DROPPED if pattern == "route-refresh" else ""
        if share < 0.9 * uniform:
            parts.append(f"Even off, it takes less than round robin's {_pct(uniform)}: {SKIPS_ITS_QUEUES}{dropped}.")
        elif share > 1.1 * uniform:
            parts.append(f"Off, it takes more than round robin's {_pct(uniform)}: {TAKES_NEXT_TURN}{dropped}.")
    if pattern == "slow":
        parts.append(f"Latency per message: {_both(summary, pattern, _latency)}.")
    else:
        lost = "no message failed after its 3 attempts" if not any(g["failed"] for g in groups.values()) else (
            f"messages failed after 3 attempts: {_both(summary, pattern, lambda g: _pct(g['failed_share']))}"
        )
        parts.append(f"Attempts per message: {_both(summary, pattern, lambda g: _num(g['attempts_per_message']))}; {lost}.")
    parts.append(f"Median time from recovery until it got sends again: {_both(summary, pattern, _back)}.")
    for (name, on), group in groups.items():
        if group["lost_from_list"]:
            parts.append(
                f"{name} ({'on' if on else 'off'}) ended {group['lost_from_list']} of {group['scenarios']} scenarios "
                "with the broker in the route but no queue of it left in the publish list (its entries rewritten to "
                "other brokers, which lasts until a new route), so it got no sends again."
            )
    return " ".join(parts)


def _median_back(group: dict[str, Any] | None) -> float | None:
    return None if group is None or not group["returned"] else group["returned_after_ms"]["p50"]


def _pairs(summary: dict[str, Any], faults: list[str]):
    """``(pattern, release, off, on)`` for every fault pattern and release with both settings."""
    for pattern in faults:
        groups = groups_of(summary, pattern)
        for release in _releases(summary):
            off, on = groups.get((release, False)), groups.get((release, True))
            if off is not None and on is not None:
                yield pattern, release, off, on


def _headline(summary: dict[str, Any]) -> list[str]:
    """The direct answer: where it helps during the fault, what it costs after, what 5.3.3 changed."""
    faults = [p for p in FAULTS if p in _patterns(summary)]
    pairs = [pair for pair in _pairs(summary, faults) if None not in (pair[2]["degraded_share"], pair[3]["degraded_share"])]
    if not pairs:
        return []
    helped = [p for p in pairs if p[3]["degraded_share"] < p[2]["degraded_share"]]
    off_shares = [off["degraded_share"] for _, _, off, _ in pairs]
    on_shares = [on["degraded_share"] for _, _, _, on in pairs]
    where = "in every fault pattern and release" if len(helped) == len(pairs) else (
        f"in {len(helped)} of {len(pairs)} (fault pattern, release) pairs; not for "
        + ", ".join(f"{PATTERN_TITLES[p]} at {r}" for p, r, off, on in pairs if (p, r, off, on) not in helped)
    )
    lines = [
        f"While the fault lasts, {'yes' if helped else 'no'}: with sendLatencyFaultEnable on, at most "
        f"{_pct(max(on_shares))} of the sends during a fault tried the degraded broker first, against "
        f"{_pct(min(off_shares))} to {_pct(max(off_shares))} with it off, {where}."
    ]
    worst_on: dict[str, tuple[float, str]] = {}
    worst_off = 0.0
    in_route = [p for p in faults if p != "route-refresh"]  # where only isolation keeps the broker out
    for pattern, release, off, on in _pairs(summary, in_route):
        back = _median_back(on)
        if back is not None and back >= worst_on.get(release, (-1.0, ""))[0]:
            worst_on[release] = (back, pattern)
        worst_off = max(worst_off, _median_back(off) or 0.0)
    if worst_on:
        worst = ", ".join(f"{_secs(b)} s at {r} ({PATTERN_TITLES[p]})" for r, (b, p) in worst_on.items())
        lost: dict[str, int] = {}
        for _, release, _, on in _pairs(summary, in_route):
            lost[release] = lost.get(release, 0) + on["lost_from_list"]
        lost_text = ", ".join(f"{count} at {release}" for release, count in lost.items() if count)
        lines.append(
            "The price comes after recovery: an isolated broker stays out until its isolation ends, however soon it "
            f"recovered. While the broker stays in the route, with it on, the median wait until a recovered broker got sends again reached {worst}; with it "
            f"off, at most {_secs(worst_off)} s."
            + (f" In some scenarios with it on ({lost_text}), the broker never got sends again: no queue of it was left "
               "in the publish list." if lost_text else "")
        )
    changed = _what_changed(summary, faults)
    if changed:
        lines.append(changed)
    return lines


def _what_changed(summary: dict[str, Any], faults: list[str]) -> str:
    """The last 4.x release against 5.3.3, latency fault tolerance on: recovery, and probing during the fault."""
    releases = _releases(summary)
    before = [r for r in releases if r.startswith("4.")]
    if "5.3.3" not in releases or not before:
        return ""
    old = before[-1]
    pairs = []
    for pattern in faults:
        groups = groups_of(summary, pattern)
        if (old, True) in groups and ("5.3.3", True) in groups:
            pairs.append((pattern, groups[(old, True)], groups[("5.3.3", True)]))
    if not pairs:
        return ""
    backs = "; ".join(f"{PATTERN_TITLES[p]}: {_secs(_median_back(b))} s against {_secs(_median_back(a))} s" for p, a, b in pairs)
    shares = "; ".join(f"{PATTERN_TITLES[p]}: {_pct(b['degraded_share'])} against {_pct(a['degraded_share'])}" for p, a, b in pairs)
    tables = {e["release"]: e for e in summary["isolation"]["releases"]}
    new_ms, old_ms = tables["5.3.3"]["failed_send"]["isolation_ms"], tables[old]["failed_send"]["isolation_ms"]
    return (
        f"5.3.3 changed it by shortening isolation: a failed send keeps a broker out for {new_ms / 1000:g} s instead "
        f"of {old_ms / 1000:g} s ({old}). A recovered broker gets sends back that much sooner (median, on, 5.3.3 "
        f"against {old}: {backs}). In exchange, 5.3.3 tries a degraded broker again each time its shorter isolation "
        f"ends, so more first attempts reach it while the fault lasts ({shares})."
    )


def _user_sentences(summary: dict[str, Any], spec: str) -> str:
    """A user's strategy against the reference port of the release whose send loop played it."""
    release = next(c["release"] for c in summary["configurations"] if label(c) == spec)
    parts = []
    for pattern in [p for p in FAULTS if p in _patterns(summary)]:
        groups = groups_of(summary, pattern)
        mine = [groups.get((spec, on)) for on in (False, True)]
        theirs = [groups.get((release, on)) for on in (False, True)]
        if None in mine:
            continue

        def both(show, pair) -> str:
            return ", ".join(f"{'on' if on else 'off'} {MISSING if g is None else show(g)}" for on, g in zip((False, True), pair))

        text = f"{PATTERN_TITLES[pattern][0].upper()}{PATTERN_TITLES[pattern][1:]}: first attempts to the degraded broker {both(_share, mine)}"
        if None not in theirs:
            text += f" ({release}: {both(_share, theirs)})"
        text += f"; median back after recovery {both(_back, mine)}"
        if None not in theirs:
            text += f" ({release}: {both(_back, theirs)})"
        parts.append(text)
    errors = sum(g["errors"] for g in summary["groups"] if not is_reference(g) and label(g) == spec)
    runs = sum(g["scenarios"] for g in summary["groups"] if not is_reference(g) and label(g) == spec)
    said = f"Your strategy {spec}, played through {release}'s send loop ({release}'s reference port in parentheses)."
    if errors:
        said += (f" {errors} of its {runs} scenario runs ended on an exception it raised (see Errors): their counts "
                 "stop there, and the broker never got sends again in them.")
    return f"{said} {'. '.join(parts)}." if parts else said


def answer(summary: dict[str, Any]) -> list[str]:
    """The report's answer, one paragraph per item: the headline (the reference ports), then one per
    fault pattern, then one per user's strategy, then the control."""
    paragraphs = _headline(summary)
    paragraphs += [_fault_sentences(summary, p) for p in FAULTS if p in _patterns(summary)]
    paragraphs += [_user_sentences(summary, spec) for spec in user_strategies(summary)]
    if "healthy" in _patterns(summary):
        groups = groups_of(summary, "healthy").values()
        gaps = [abs(g["degraded_share"] - g["uniform_share"]) for g in groups if g["degraded_share"] is not None]
        if gaps:
            paragraphs.append(
                f"Control (no fault): the 'degraded' broker's share of first attempts was within {100 * max(gaps):.2f} "
                "percentage points of round robin's (1 / brokers) in every configuration."
            )
    return paragraphs


# ------------------------------------------------------------------------------ the blocks


def _isolation_blocks(summary: dict[str, Any]) -> list[Block]:
    isolation = summary["isolation"]
    entries = isolation["releases"]
    documented = {d["latency_ms"]: d["isolation_ms"] for d in isolation["documentation"]["steps"]}
    latencies = [s["latency_ms"] for s in entries[0]["steps"]] if entries else []
    rows = []
    for index, latency in enumerate(latencies):
        cells = [f"{e['steps'][index]['isolation_ms']:,}" for e in entries]
        rows.append((f"{latency:,}", *cells, f"{documented[latency]:,}" if latency in documented else "not stated"))
    rows.append(
        (
            "a failed send (isolation=true)",
            *(f"{e['failed_send']['isolation_ms']:,} (priced at {e['failed_send']['priced_at_ms']:,} ms)" for e in entries),
            "not stated",
        )
    )
    headers = ("Latency of the last send, at least (ms)", *(f"{e['release']}: isolated for (ms)" for e in entries),
               "Documentation: isolated for (ms)")
    words = []
    for latency, stated in documented.items():
        code = ", ".join(
            f"{e['release']} {next(s['isolation_ms'] for s in e['steps'] if s['latency_ms'] == latency):,} ms" for e in entries
        )
        words.append(f"{latency:,} ms of latency isolates a broker for {stated:,} ms; the code: {code}")
    return [
        Heading(2, "Isolation: the code against the documentation"),
        Para(
            "How long each release keeps a broker out after a send, as its reference port computes it "
            "(computeNotAvailableDuration over the default latencyMax and notAvailableDuration tables), "
            "beside the figures the documentation states. " + isolation["documentation"]["source"] + "."
        ),
        Para("The documentation says " + "; and ".join(words) + "."),
        Table(headers, rows, "l" + "r" * (len(headers) - 1)),
        Image("Isolation by latency, per release, with the documented figures", ISOLATION_PLOT),
    ]


def _space_blocks(summary: dict[str, Any]) -> list[Block]:
    space = summary["space"]
    meaning = {p: PATTERN_MEANING[p].format(slow=space["slow_latency_ms"], flap=span(space["flap_period_s"]))
               for p in space["patterns"]}
    rows = [
        ("Scenarios", f"{space['scenarios']:,}, each played under {len(summary['configurations'])} configurations "
         f"(releases {', '.join(_releases(summary))}"
         + (f"; your {'strategy' if len(user_strategies(summary)) == 1 else 'strategies'} "
            f"{', '.join(user_strategies(summary))}" if user_strategies(summary) else "")
         + "; sendLatencyFaultEnable off and on)"),
        ("Brokers", span(space["brokers"])),
        ("Queues per broker", span(space["queues"])),
        ("Fault patterns", ", ".join(space["patterns"]) + " (taking turns)"),
        ("Sends", f"one due every {space['interval_ms']} ms, synchronous, up to 3 attempts each (sendDefaultImpl)"),
        ("Fault", f"starts after {span(space['onset_s'])} s, lasts {span(space['duration_s'])} s, on one broker"),
        ("Seed", str(space["seed"])),
        ("Master", f"{summary['master']} ({summary['partitions']} partitions)"),
        ("Elapsed", f"{summary['elapsed_seconds']:.2f} s"),
    ]
    rows += [(f"Pattern: {p}", text) for p, text in meaning.items()]
    return [Heading(2, "Scenario space"), Table(("Setting", "Value"), rows, "ll")]


def _group_row(group: dict[str, Any], errors: bool = False) -> tuple[str, ...]:
    back = group["returned_after_ms"]
    return (*_group_cells(group, back), *((str(group["errors"]),) if errors else ()))


def _group_cells(group: dict[str, Any], back: dict[str, Any]) -> tuple[str, ...]:
    return (
        label(group),
        "on" if group["latency_fault"] else "off",
        f"{group['scenarios']:,}",
        f"{group['sends']:,}",
        _pct(group["degraded_share"]),
        _pct(group["uniform_share"]),
        _pct(group["failed_share"]),
        _num(group["attempts_per_message"]),
        _num(group["latency_per_message_ms"], 1),
        _secs(back["p50"]),
        _secs(back["p90"]),
        _secs(back["max"]),
        str(group["never_returned"]),
    )


def _result_blocks(summary: dict[str, Any]) -> list[Block]:
    blocks: list[Block] = [
        Heading(2, "Results per fault pattern"),
        Para(
            "Per release and sendLatencyFaultEnable setting, over the sends due while the fault lasted, pooled over "
            "the scenarios: the share whose first attempt went to the degraded broker (round robin's share: what "
            "1 / brokers would give), the share that failed after all 3 attempts, attempts and latency per message "
            "(all attempts of a send, the waits of a slow broker included); then, over the scenarios, the time from "
            "recovery until an attempt reached the degraded broker again, and in how many scenarios it never did "
            "before the run stopped (the longest isolation of any release and a route poll after recovery)."
        ),
    ]
    headers: tuple[str, ...] = GROUP_HEADERS
    if user_strategies(summary):
        headers = ("Release, or your strategy", *GROUP_HEADERS[1:])
    errors = any(g["errors"] for g in summary["groups"])
    if errors:
        headers = (*headers, "Runs ended on an exception")
    for pattern in _patterns(summary):
        rows = [_group_row(g, errors) for g in summary["groups"] if g["pattern"] == pattern]
        blocks += [Heading(3, PATTERN_TITLES.get(pattern, pattern)), Table(headers, rows, "ll" + "r" * (len(headers) - 2))]
    return blocks


def _error_blocks(summary: dict[str, Any]) -> list[Block]:
    errors = sum(g["errors"] for g in summary["groups"])
    if not errors:
        return []
    blocks: list[Block] = [Heading(2, "Errors"), Para(f"{errors} scenario runs ended on an exception; the first:")]
    blocks += [
        Para(f"Scenario {e['scenario']}, {label(e)}, sendLatencyFaultEnable {'on' if e['latency_fault'] else 'off'}: {e['error']}")
        for e in summary["errors"]
    ]
    return blocks


def _blocks(summary: dict[str, Any]) -> list[Block]:
    return [
        Heading(1, TITLE),
        Para(
            f"{summary['tool']}: a producer's synchronous sends against the reference ports of MQFaultStrategy"
            + "".join(f" and {spec}" for spec in user_strategies(summary))
            + ", on a simulated clock, with one broker degraded in each scenario."
        ),
        Heading(2, "The answer"),
        *(Para(text) for text in answer(summary)),
        Image("Share of sends whose first attempt went to the degraded broker, per release, off and on", SHARE_PLOT),
        Image("Time from recovery until the degraded broker got sends again, per release, off and on", RECOVERY_PLOT),
        *_isolation_blocks(summary),
        *_result_blocks(summary),
        *_space_blocks(summary),
        *_error_blocks(summary),
    ]


def render_producer_markdown(summary: dict[str, Any]) -> str:
    return markdown_of(_blocks(summary))


def render_producer_html(summary: dict[str, Any]) -> str:
    return html_of(_blocks(summary), TITLE)


def write_producer_report(summary: dict[str, Any], out_dir: Path) -> list[Path]:
    """Writes ``report.md``, ``report.html`` and the three plots into ``out_dir``; everything is
    rendered before anything is written."""
    return write_pages(out_dir, _blocks(summary), TITLE, draw(summary))
