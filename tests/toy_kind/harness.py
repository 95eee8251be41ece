"""The toy round-robin selector in a process of its own, speaking the harness protocol with the
toy kind's ``next-queue`` message (standard library only, as a harness in any language would be).

    python harness.py [--broken=floor-mod]

``--broken=floor-mod`` takes Python's ``%`` for Java's, a mistake the golden vectors catch.
"""

import json
import sys

INT_MIN = -(2**31)


def wrap(value):
    return (value - INT_MIN) % 2**32 + INT_MIN


def position(index, size, broken):
    if broken == "floor-mod":
        return index % size
    return abs(index) % size  # Java's Math.abs(index % size)


def answer(request, broken):
    if request.get("strategy") != "ROUND_ROBIN":
        return {"unsupported": f"{request.get('strategy')} is not served here"}
    queues, index = request["queues"], wrap(request["params"].get("start", 0))
    picks = []
    for _ in range(request["calls"]):
        if not queues:
            return {"error": {"error": "illegal-argument", "message": "no queue to pick"}}
        picks.append(queues[position(index, len(queues), broken)])
        index = wrap(index + 1)
    return {"picks": picks}


def main():
    broken = next((arg.split("=", 1)[1] for arg in sys.argv[1:] if arg.startswith("--broken=")), None)
    name = "toy-round-robin" + (f"-{broken}" if broken else "")
    for line in sys.stdin:
        request = json.loads(line)
        command = request.get("cmd")
        if command == "bye":
            return
        if command == "hello":
            out = {"protocol": 1, "implementation": {"name": name, "language": "Python", "version": "1.0.0"},
                   "strategies": ["ROUND_ROBIN"], "sort": False}
        elif command == "next-queue":
            out = {"id": request["id"], **answer(request, broken)}
        else:
            out = {"id": request.get("id"), "unsupported": f"unknown command {command!r}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
