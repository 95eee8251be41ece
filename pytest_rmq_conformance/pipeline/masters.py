"""Internal: the check of a Spark master URL.

Spark master URLs, checked before Spark starts: the forms Spark accepts, and for a standalone
master (``spark://host:port``) whether anything listens there.

    >>> url_problem("local[2]") is None, url_problem("spark://head:7077,standby:7077") is None
    (True, True)
    >>> url_problem("bogus://x")
    "--master bogus://x: Spark takes local, local[N], local[*], local[N,RETRIES], spark://HOST:PORT[,HOST:PORT...], yarn or k8s://URL"
"""

from __future__ import annotations

import re
import socket

__all__ = ["url_problem", "unreachable", "standalone_addresses"]

_FORMS = (
    r"local",
    r"local\[\s*(\d+|\*)\s*\]",
    r"local\[\s*(\d+|\*)\s*,\s*\d+\s*\]",
    r"local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]",
    r"spark://[^/\s]+",
    r"yarn",
    r"k8s://\S+",
)
ACCEPTED = "local, local[N], local[*], local[N,RETRIES], spark://HOST:PORT[,HOST:PORT...], yarn or k8s://URL"


def standalone_addresses(master: str) -> list[tuple[str, int]] | None:
    """The ``(host, port)`` of each master a ``spark://`` URL names (``None`` for other masters,
    ``[]`` when one of them is not ``HOST:PORT``)."""
    if not master.startswith("spark://"):
        return None
    found = []
    for part in master[len("spark://"):].split(","):
        match = re.fullmatch(r"(\[[0-9a-fA-F:.]+\]|[^:\[\]]+):(\d{1,5})", part.strip())
        if match is None or not 0 < int(match.group(2)) < 65536:
            return []
        found.append((match.group(1).strip("[]"), int(match.group(2))))
    return found


def url_problem(master: str) -> str | None:
    """Why Spark would refuse ``master`` as a master URL, in one sentence, or ``None``."""
    if not any(re.fullmatch(form, master) for form in _FORMS):
        return f"--master {master}: Spark takes {ACCEPTED}"
    if standalone_addresses(master) == []:
        return f"--master {master}: a standalone master is spark://HOST:PORT (several, for standby masters, joined by commas)"
    if re.fullmatch(r"local\[\s*0\s*(,.*)?\]", master):
        return f"--master {master}: local mode needs at least one thread"
    return None


def unreachable(master: str, timeout: float = 5.0) -> str | None:
    """For a ``spark://`` master: one sentence naming it and what to check when none of its
    addresses accepts a connection within ``timeout`` s; ``None`` when one does, or for other masters."""
    addresses = standalone_addresses(master)
    if not addresses:
        return None
    reasons = []
    for host, port in addresses:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                return None
        except OSError as exc:
            reasons.append(f"{host}:{port}: {exc.strerror or type(exc).__name__}")
    return (f"no Spark master answers at {master} ({'; '.join(reasons)}): check that the master runs "
            "(sbin/start-master.sh, or spark-class org.apache.spark.deploy.master.Master) and that its host "
            "and port are the ones its log names as 'Starting Spark master at spark://...'")
