"""Install each client of ``isolated.txt`` alone, under ``.isolated/<name>``: these share the
top-level module ``rocketmq`` (and protobuf registrations) with another client, so no two can
share a folder. Run by the clients tox environments:

    python clients/python/isolate.py
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    for line in (HERE / "isolated.txt").read_text(encoding="utf-8").split():
        name = line.split("==")[0]
        target = HERE / ".isolated" / name
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade", "--target", str(target), line]
        if subprocess.call(command) != 0:
            print(f"clients/python/isolate.py: could not install {line} into {target}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
