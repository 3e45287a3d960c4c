#!/usr/bin/env python3
"""Turns bench/results/{collect,collect-10ms,rss,rss-split,oneshot,serve}.json into summary.json and summary.md (also printed).

Usage: summarize.py RESULTS_DIR
"""
import datetime
import json
import os
import platform
import sys

# Targets the figures are held to (docs/benchmarks.md explains each).
AGENT_US_PER_GPU_TICK = 20.0
RSS_MIB = 20.0
RPS_VS_NODE_EXPORTER = 50.0
RPS_VS_TEXTFILE = 5.0
CPU_NS_PER_SAMPLE = 100.0

# Side-by-side pairs: (gpuwatch run, peer run, peer's description, requests/s target or None).
PAIRS = [
    ("gpuwatch", "node_exporter", "node_exporter, default collectors", RPS_VS_NODE_EXPORTER),
    ("gpuwatch", "textfile", "node_exporter, textfile only (same samples)", RPS_VS_TEXTFILE),
    ("gpuwatch_gzip", "node_exporter_gzip", "node_exporter, default collectors, gzip", RPS_VS_NODE_EXPORTER),
    ("gpuwatch_gzip", "textfile_gzip", "node_exporter, textfile only, gzip", RPS_VS_TEXTFILE),
]


def load(results, name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def machine(results):
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kib = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    return {
        # The run's date: when its first result was written, so summarising again later does not change it.
        "date": run_date(results),
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "ram_gib": round(mem_kib / 1024 / 1024, 1),
        "kernel": platform.release(),
    }


def run_date(results):
    path = os.path.join(results, "collect.json")
    stamp = os.path.getmtime(path) if os.path.exists(path) else datetime.datetime.now().timestamp()
    return datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def server_figures(s):
    w = s["wrk"]
    requests = max(w["requests"], 1)
    cpu_us = s["cpu_seconds"] * 1e6 / requests
    return {
        "requests_per_second": w["requests_per_second"],
        "latency_p99_ms": w["latency_p99_ms"],
        "payload_bytes": s["payload_bytes"],
        "samples": s["samples"],
        "samples_per_second": w["requests_per_second"] * s["samples"],
        "cpu_us_per_scrape": cpu_us,
        "cpu_ns_per_sample": cpu_us * 1000 / max(s["samples"], 1),
        "errors": sum(w["errors"].values()),
        "rss_mib": s.get("vm_rss_kib", 0) / 1024,
    }


def verdict(ok):
    return "met" if ok else "**missed**"


def agent_verdict(us):
    # NVML time is wall time: waiting for a CPU or the simulator's lock inside a call counts there too, so on a
    # busy machine it can exceed the process's CPU time, and the difference says nothing.
    if us < 0:
        return "inconclusive: NVML wall time above process CPU"
    return verdict(us <= AGENT_US_PER_GPU_TICK)


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results")
    collect = load(results, "collect.json")
    fast = load(results, "collect-10ms.json")
    rss = load(results, "rss.json")
    serve = load(results, "serve.json")
    summary = {"machine": machine(results)}
    md = []
    m = summary["machine"]
    md.append(f"gpuwatch benchmarks, {m['date']}: {m['nproc']} CPUs ({m['cpu_model']}), {m['ram_gib']} GiB RAM, "
              f"Linux {m['kernel']}")

    if collect:
        runs = [("1 s", collect)] + ([("10 ms", fast)] if fast else [])
        summary["collect"] = {label: c for label, c in runs}
        md += ["", "### Collection cost (libnvml-sim, lockstep; µs per GPU per tick)", "",
               "| interval | ticks | GPUs | processes | process CPU | inside NVML | agent's own | target | RSS / HWM |",
               "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for label, c in runs:
            md.append(f"| {label} | {c['ticks']} | {c['gpus']} | {c['processes']} | "
                      f"{c['process_cpu_us_per_gpu_tick']:.1f} | {c['nvml_us_per_gpu_tick']:.1f} | "
                      f"{c['agent_us_per_gpu_tick']:.1f} | <= {AGENT_US_PER_GPU_TICK:g} "
                      f"({agent_verdict(c['agent_us_per_gpu_tick'])}) | "
                      f"{c['vm_rss_kib'] / 1024:.1f} / {c['vm_hwm_kib'] / 1024:.1f} MiB |")
            if c["missed_reads"]:
                md.append(f"\n{c['missed_reads']} device reads missed their deadline in the {label} run.")

    for name, key in (("collect-cpu-split.json", "collect_cpu_split"),
                      ("collect-10ms-cpu-split.json", "collect_10ms_cpu_split")):
        split = load(results, name)
        if not split:
            continue
        summary[key] = split
        us = split["agent_us_per_gpu_tick"]
        top = ", ".join(f"{f['function'][:60]} {100 * f['share']:.1f}%" for f in split["agent_top_functions"][:5])
        md += ["", f"By CPU samples (perf, {split['samples']} samples of the same {split['interval_ms']} ms run, profiled): "
                   f"{100 * split['agent_share']:.1f}% outside NVML, i.e. agent's own {us:.1f} µs and NVML "
                   f"{split['nvml_us_per_gpu_tick']:.1f} µs per GPU per tick (target <= {AGENT_US_PER_GPU_TICK:g} µs: "
                   f"{verdict(us <= AGENT_US_PER_GPU_TICK)}). Largest agent shares of all samples: {top}."]

    callgrind = load(results, "collect-callgrind.json")
    if callgrind:
        summary["collect_callgrind"] = callgrind
        md += ["", f"By instruction counts (callgrind, ticks {callgrind['ticks'][1]} minus {callgrind['ticks'][0]}, "
                   f"{callgrind['gpus']} GPUs): {callgrind['agent_instructions_per_gpu_tick']:,.0f} instructions per "
                   f"GPU per tick outside NVML, {callgrind['nvml_instructions_per_gpu_tick']:,.0f} inside it "
                   f"(the simulator)."]

    if rss:
        summary["rss"] = rss
        rss_mib = rss["vm_rss_kib"] / 1024
        md += ["", "### Agent memory after 10 minutes of agent life", "",
               f"{rss['agent_ticks']} ticks of 1 s scenario time in {rss['wall_seconds']} s wall "
               f"(GPUWATCH_SIM_TIME_SCALE={rss['time_scale']}), {rss['scrapes']} gzip scrapes: "
               f"VmRSS {rss_mib:.1f} MiB, VmHWM {rss['vm_hwm_kib'] / 1024:.1f} MiB "
               f"(target <= {RSS_MIB:g} MiB: {verdict(rss_mib <= RSS_MIB)})."]

    split_rss = load(results, "rss-split.json")
    if rss and split_rss:
        summary["rss_split"] = split_rss
        parts = ", ".join(f"{name} {kib / 1024:.1f}" for name, kib in list(split_rss["parts_kib"].items())[:10])
        md += ["", f"Where it goes (MiB, /proc/PID/smaps at the end of the run): {parts}."]

    oneshot = load(results, "oneshot.json")
    if oneshot:
        summary["oneshot"] = oneshot
        commands = oneshot["commands"]
        peer = commands.get("nvtop")
        md += ["", f"### One-shot commands (whole processes in turn, medians of {oneshot['runs']} runs)", "",
               "| command | wall ms | CPU ms | wall vs nvtop -s | CPU vs nvtop -s |", "| --- | --- | --- | --- | --- |"]
        for name, c in commands.items():
            if peer:
                ratios = (f"{c['median_wall_ms'] / peer['median_wall_ms']:.2f}x | "
                          f"{c['median_cpu_ms'] / max(peer['median_cpu_ms'], 1e-9):.2f}x")
            else:
                ratios = "- (NVTOP not set) | -"
            md.append(f"| {name} | {c['median_wall_ms']:.1f} | {c['median_cpu_ms']:.1f} | {ratios} |")

    if serve:
        figures = {s["name"]: server_figures(s) for s in serve["servers"]}
        summary["serve"] = figures
        md += ["", "### /metrics serving (same wrk settings, one server after the other)", "",
               "| server | requests/s | p99 ms | payload bytes | samples | CPU µs/scrape | CPU ns/sample | errors "
               "| RSS after, MiB |",
               "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for name, f in figures.items():
            md.append(f"| {name} | {f['requests_per_second']:.0f} | {f['latency_p99_ms']:.2f} | "
                      f"{f['payload_bytes']} | {f['samples']} | {f['cpu_us_per_scrape']:.1f} | "
                      f"{f['cpu_ns_per_sample']:.1f} | {f['errors']} | {f['rss_mib']:.1f} |")
        md += ["", "| gpuwatch vs | requests/s | samples/s | CPU per scrape (peer / gpuwatch) | "
                   "CPU per sample (peer / gpuwatch) | requests/s target |",
               "| --- | --- | --- | --- | --- | --- |"]
        ratios = []
        for ours, peer, label, target in PAIRS:
            if ours not in figures or peer not in figures:
                continue
            a, b = figures[ours], figures[peer]
            r = {
                "gpuwatch": ours, "peer": peer,
                "requests_per_second": a["requests_per_second"] / b["requests_per_second"],
                "samples_per_second": a["samples_per_second"] / b["samples_per_second"],
                "cpu_per_scrape": b["cpu_us_per_scrape"] / max(a["cpu_us_per_scrape"], 1e-9),
                "cpu_per_sample": b["cpu_ns_per_sample"] / max(a["cpu_ns_per_sample"], 1e-9),
                "requests_per_second_target": target,
            }
            ratios.append(r)
            md.append(f"| {label} | {r['requests_per_second']:.1f}x | {r['samples_per_second']:.1f}x | "
                      f"{r['cpu_per_scrape']:.1f}x | {r['cpu_per_sample']:.1f}x | >= {target:g}x "
                      f"({verdict(r['requests_per_second'] >= target)}) |")
        summary["serve_ratios"] = ratios
        if "gpuwatch" in figures:
            ns = figures["gpuwatch"]["cpu_ns_per_sample"]
            md += ["", f"gpuwatch CPU per sample served: {ns:.1f} ns (target < {CPU_NS_PER_SAMPLE:g} ns: "
                       f"{verdict(ns < CPU_NS_PER_SAMPLE)})."]

    text = "\n".join(md) + "\n"
    with open(os.path.join(results, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    with open(os.path.join(results, "summary.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
