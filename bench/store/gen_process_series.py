#!/usr/bin/env python3
"""Generate the process-series corpus of `make bench-store`'s regex shape: 1,000 per-process series of
gpu_process_memory_used_bytes on one 8-GPU node (worker-N processes, 125 a GPU), at a coarser interval
than the shared corpus (default 30 s) over the same window, so that the shared corpus' figures stay as
they are. Memory in MiB steps: an allocation at start, growth every few minutes, a drop now and then.

Writes PREFIX.om (OpenMetrics, second timestamps) and PREFIX.prom (Prometheus text, millisecond
timestamps), and prints TOTAL_SAMPLES. Pure python3, deterministic for a given --seed.

  gen_process_series.py --start 1796083200 --duration 86400 --out-prefix corpus/procs
"""
import argparse
import random

from corpus_files import CorpusFiles

MIB = 1048576


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--start", type=int, required=True)
    ap.add_argument("--duration", type=int, default=86400, help="seconds")
    ap.add_argument("--interval", type=int, default=30, help="seconds between samples")
    ap.add_argument("--series", type=int, default=1000)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--hostname", default="h200-node-01")
    ap.add_argument("--out-prefix", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    steps = a.duration // a.interval
    total = 0
    with CorpusFiles(a.out_prefix, "gpu_process_memory_used_bytes", "Per-process used GPU memory") as files:
        for i in range(a.series):
            labels = '{gpu="%d",hostname="%s",pid="%d",process_name="worker-%d"}' % (
                i % a.gpus, a.hostname, 100000 + i, i)
            mib = rng.randint(512, 8192)
            samples = []
            for k in range(steps):
                if rng.random() < 0.01:
                    mib = max(256, mib + rng.choice((-1, 1, 1, 2)) * rng.randint(2, 512))
                samples.append((a.start + k * a.interval, "%d" % (mib * MIB)))
            total += files.write_series(labels, samples)
    print("TOTAL_SAMPLES", total)


if __name__ == "__main__":
    main()
