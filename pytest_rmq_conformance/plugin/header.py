"""The report header: what is under test, where each choice came from, and the seed.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

__all__ = ["header_lines", "harness_line"]


def harness_line(subject) -> str:
    """What a harness said of itself, and what its hello rules out (skipped, each with its reason)."""
    from pytest_rmq_conformance.engine import kinds

    hello = subject.hello
    line = f"harness {hello.describe()}: families {', '.join(subject.families) or 'none'}"
    skipped = [] if hello.sort else ['sort (its hello says "sort": false)']
    missing = [name for name in kinds.names() if name not in subject.families]
    if missing:
        skipped.append(f"every check of {', '.join(missing)} (not in its hello's strategies)")
    line += "; sort checked" if hello.sort else ""
    if skipped:
        line += f"; skipped: {'; '.join(skipped)}"
    unknown = [name for name in hello.strategies if name not in kinds.names()]
    if unknown:
        line += f"; unknown to this suite, ignored: {', '.join(unknown)}"
    return line


def header_lines(state) -> list[str]:
    """The header of a run, one line each, prefixed ``rmq-conformance:``."""
    from pytest_rmq_conformance.engine.golden.data import GoldenDataError
    from pytest_rmq_conformance.engine.settings import profile_examples

    subject, golden = state.subject, state.golden
    settings = subject.settings
    lines = [f"strategy {settings.spec} ({settings.origin})"]
    if subject.load_error is not None:  # not in a run of the suite, where it is a usage error
        lines.append(f"cannot load the strategy: {subject.load_error}")
    else:
        lines[0] += f": {subject.source.resolved.describe()}, name {subject.name}"
        compared = getattr(subject.kind, "compared", None) if subject.families else None
        order = "lists (strict order)" if settings.strict_order else "sets"
        limit = f"{settings.timeout:g} s per call" if settings.timeout else "no time limit"
        java = golden.java_label()  # the release, or the client whose runs answer its cases
        lines.append(
            f"{java} ({settings.version_origin}), charset {settings.charset}, "
            f"answers compared {compared or 'as ' + order}, {limit}"
        )
        hello = subject.hello
        if hello is not None:
            lines.append(harness_line(subject))
        else:
            origin, release = subject.properties_origin, f" at {settings.version}"
            if origin.startswith("Java's ") and origin.endswith(release):
                origin = origin[: -len(release)] + f" at {java.removeprefix('RocketMQ ')}"
            lines.append(f"invariants: {', '.join(sorted(subject.properties)) or 'none'} ({origin})")
        if not subject.families:
            lines.append(
                f"name {subject.name!r} has no Java twin: the golden vectors and the reference do not apply, "
                "only the invariants"
            )
        else:
            try:
                count = len(golden.cases())
            except (GoldenDataError, LookupError) as exc:
                lines.append(f"golden vectors unusable: {exc}")
            else:
                note = f"; {golden.note}" if golden.note else ""
                lines.append(f"golden vectors: {count} {'/'.join(subject.families)} cases{note}")
    lines.append(
        f"generated checks: profile {settings.profile}, {profile_examples(settings)} examples each, "
        f"seed {settings.seed} (replay with --rmq-seed={settings.seed})"
    )
    return [f"rmq-conformance: {line}" for line in lines]
