#!/usr/bin/env python3
"""Times whole processes in turn: run i of every command, then run i+1 of every command (each round in an
order rotated by one), so a machine whose load changes during the benchmark slows each command alike. Each
run's wall time (fork to exit) and CPU time (user + system from wait4's rusage, the child and the threads it
ran) are kept; the medians are reported.
hyperfine times one command's runs one after the other, which on a shared machine under a changing load
compares two different moments; this loop compares the same ones.

Usage: oneshot_times.py RUNS NAME=COMMAND [NAME=COMMAND ...]   (each COMMAND run by /bin/sh -c, its stdout
to /dev/null; the child's exit status is recorded, not judged: status exits 3 on a critical node)
Prints one JSON object: {"runs": N, "commands": {NAME: {"wall_ms": [...], "cpu_ms": [...], "median_wall_ms",
"median_cpu_ms", "exit_codes": [...], and the same of RUNS runs back to back: "back_to_back_wall_ms", ...,
"back_to_back_median_cpu_ms"}}}.
"""
import json
import os
import statistics
import sys
import time


def run_once(command):
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv("/bin/sh", ["/bin/sh", "-c", "exec " + command])
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - start
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000, os.waitstatus_to_exitcode(status)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    runs = int(sys.argv[1])
    commands = [arg.split("=", 1) for arg in sys.argv[2:]]
    results = {name: {"command": command, "wall_ms": [], "cpu_ms": [], "exit_codes": []} for name, command in commands}
    for name, command in commands:  # one warm-up each: the page cache holds every library afterwards
        run_once(command)
    for i in range(runs):
        # Each round starts one command further on, so that no command always follows the same one: a
        # command run right after nvtop -s (which sleeps 100 ms for its second sample) starts on a CPU that
        # was idle and pays for it, by about 0.5 ms on a 2-CPU virtual machine.
        for name, command in commands[i % len(commands):] + commands[:i % len(commands)]:
            wall, cpu, code = run_once(command)
            results[name]["wall_ms"].append(round(wall, 3))
            results[name]["cpu_ms"].append(round(cpu, 3))
            results[name]["exit_codes"].append(code)
    # Then each command's runs one after another, as hyperfine times them: every run follows its own, on a
    # busy CPU with warm caches. Both figures are kept; the rounds in turn are the harder of the two.
    for name, command in commands:
        r = results[name]
        r["back_to_back_wall_ms"], r["back_to_back_cpu_ms"] = [], []
        for _ in range(runs):
            wall, cpu, _code = run_once(command)
            r["back_to_back_wall_ms"].append(round(wall, 3))
            r["back_to_back_cpu_ms"].append(round(cpu, 3))
    for r in results.values():
        r["median_wall_ms"] = round(statistics.median(r["wall_ms"]), 3)
        r["median_cpu_ms"] = round(statistics.median(r["cpu_ms"]), 3)
        r["back_to_back_median_wall_ms"] = round(statistics.median(r["back_to_back_wall_ms"]), 3)
        r["back_to_back_median_cpu_ms"] = round(statistics.median(r["back_to_back_cpu_ms"]), 3)
    print(json.dumps({"runs": runs, "commands": results}, indent=2))


if __name__ == "__main__":
    main()
