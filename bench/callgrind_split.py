#!/usr/bin/env python3
"""Instructions per GPU per tick inside NVML (libnvml-sim) and outside it (the agent's own), from two callgrind
profiles of collect_bench that differ only in their tick count. Subtracting the short run from the long one
removes start-up (dlopen, scenario parsing, enumeration), so what is left is the steady per-tick cost.

Instruction counts do not depend on what else the machine runs, unlike CPU time on a shared 2-core VM.

Usage: callgrind_split.py SHORT_PROFILE LONG_PROFILE SHORT_TICKS LONG_TICKS GPUS > collect-callgrind.json
"""
import json
import re
import sys

SIMULATOR = "libnvml-sim"


def parse(path):
    """Returns (total instructions, instructions of calls made from other objects into the simulator)."""
    names = {}
    total = inside = 0
    ob = cob = call_cob = None
    pending_call = False

    def resolve(value):
        m = re.match(r"\((\d+)\)(?:\s+(.*))?", value)
        if not m:
            return value
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), "?")

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("ob="):
                ob, cob = resolve(line[3:]), None
            elif line.startswith("cob="):
                cob = resolve(line[4:])
            elif line.startswith("fn="):
                cob = None
            elif line.startswith("calls="):
                pending_call, call_cob = True, cob if cob is not None else ob
            elif line[0].isdigit() or line[0] in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call:
                    # Inclusive cost of a call: count it when it enters the simulator from outside.
                    if SIMULATOR in (call_cob or "") and SIMULATOR not in (ob or ""):
                        inside += cost
                    pending_call, cob = False, None
                else:
                    total += cost
    return total, inside


def main():
    short_path, long_path = sys.argv[1], sys.argv[2]
    short_ticks, long_ticks, gpus = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    t0, i0 = parse(short_path)
    t1, i1 = parse(long_path)
    n = (long_ticks - short_ticks) * gpus
    json.dump({
        "ticks": [short_ticks, long_ticks],
        "gpus": gpus,
        "instructions_per_gpu_tick": (t1 - t0) / n,
        "nvml_instructions_per_gpu_tick": (i1 - i0) / n,
        "agent_instructions_per_gpu_tick": ((t1 - i1) - (t0 - i0)) / n,
    }, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
