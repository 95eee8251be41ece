"""``--rmq-xfail-file`` and ``--rmq-skip-file``: known divergences, listed by stable id.

One entry per line: a case id or test name, ``fnmatch`` patterns allowed
(``pub-MACHINE_ROOM-*``), ``#`` starts a comment. An entry may carry a reason
after whitespace::

    pub-CONSISTENT_HASH-0354-unicode   our client hashes UTF-8 only
    pub-AVG-00[0-3]*

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

__all__ = ["Entry", "CaseList", "read_case_list"]


@dataclass(frozen=True)
class Entry:
    pattern: str
    reason: str
    where: str  # file:line


@dataclass
class CaseList:
    """The entries of one file, remembering which ones matched something."""

    path: Path
    entries: list[Entry]
    used: set[Entry] = field(default_factory=set)

    def match(self, names: Iterable[str]) -> Entry | None:
        """The first entry matching any of ``names`` (a case id, a test name), if any."""
        names = [name for name in names if name]
        for entry in self.entries:
            if any(fnmatchcase(name, entry.pattern) for name in names):
                self.used.add(entry)
                return entry
        return None

    def unused(self) -> list[Entry]:
        return [entry for entry in self.entries if entry not in self.used]


def read_case_list(path: Path, option: str) -> CaseList:
    """Read ``path``; ``ValueError`` naming ``option`` and the file when it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{option}={path}: cannot read: {exc}") from None
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0].strip()
        if not content:
            continue
        pattern, *reason = content.split(None, 1)
        entries.append(Entry(pattern, reason[0] if reason else "", f"{path}:{number}"))
    return CaseList(Path(path), entries)
