#!/usr/bin/env python3
"""Splits a collect_bench CPU profile into time inside NVML and the agent's own work, by CPU samples.

`perf script -F comm,tid,ip,sym,dso` output on stdin (recorded with --call-graph dwarf) of a collect_bench run;
as the argument, the JSON of an unprofiled run with the same settings, whose process CPU time the shares apply
to (profiling adds CPU time of its own). A sample whose call stack passes through the NVML library (libnvml-sim) is
NVML's, whatever it was doing there (computing, the maths library, the kernel); every other sample is the
agent's. Unlike the wall time around NVML calls, this does not count a thread waiting inside NVML for a CPU or
for a lock. Prints one JSON object.

Usage: perf script ... | cpu_split.py COLLECT_JSON
"""
import collections
import json
import sys

NVML_DSO = "libnvml-sim"


def samples(lines):
    current = []
    for line in lines:
        if line.strip():
            current.append(line.rstrip("\n"))
        elif current:
            yield current
            current = []
    if current:
        yield current


def function(frame):
    # "  7f00 gpuwatch::DeviceReader::read (/path/collect_bench)" -> "gpuwatch::DeviceReader::read"
    parts = frame.strip().split(None, 1)
    text = parts[1] if len(parts) > 1 else parts[0]
    return text.rsplit(" (", 1)[0][:100]


def main():
    with open(sys.argv[1]) as f:
        run = json.load(f)
    total = nvml = 0
    agent_functions = collections.Counter()
    for sample in samples(sys.stdin):
        frames = sample[1:]  # the first line names the thread
        total += 1
        if any(NVML_DSO in frame for frame in frames):
            nvml += 1
            continue
        # Attribute the sample to the innermost function of gpuwatch's own code, else to its leaf.
        own = next((f for f in frames if "gpuwatch::" in f), frames[0] if frames else "?")
        agent_functions[function(own)] += 1
    if total == 0:
        raise SystemExit("cpu_split: no samples in the profile")
    share = (total - nvml) / total
    cpu = run["process_cpu_us_per_gpu_tick"]
    print(json.dumps({
        "benchmark": "collect_cpu_split",
        "ticks": run["ticks"],
        "interval_ms": run["interval_ms"],
        "samples": total,
        "nvml_samples": nvml,
        "agent_share": share,
        "process_cpu_us_per_gpu_tick": cpu,
        "nvml_us_per_gpu_tick": cpu * (1 - share),
        "agent_us_per_gpu_tick": cpu * share,
        "agent_top_functions": [{"function": k, "share": v / total} for k, v in agent_functions.most_common(8)],
    }, indent=2))


if __name__ == "__main__":
    main()
