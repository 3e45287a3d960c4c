#!/usr/bin/env python3
"""Generate the month corpus of `make bench-store`'s 30-day shape: gpu_power_watts of every GPU of a second
8-GPU node over 30 days at a coarser interval than the shared corpus (default 10 s), the way a dashboard's
month view reads a fleet's history. A second hostname keeps these series apart from the shared corpus'
(its figures stay as they are); the window ends where the shared corpus does.

Power follows each GPU's job: a busy level that changes every few hours, idle gaps, a daily cycle and
reading noise, in centiwatts as NVML reports them. Writes PREFIX.om (OpenMetrics, second timestamps) and
PREFIX.prom (Prometheus text, millisecond timestamps), and prints TOTAL_SAMPLES. Pure python3,
deterministic for a given --seed.

  gen_month_power.py --end 1796169599 --days 30 --out-prefix corpus/month
"""
import argparse
import math
import random

from corpus_files import CorpusFiles


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--end", type=int, required=True, help="last second of the window")
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--interval", type=int, default=10, help="seconds between samples")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--hostname", default="h200-node-02")
    ap.add_argument("--out-prefix", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    start = a.end + 1 - a.days * 86400
    steps = a.days * 86400 // a.interval
    total = 0
    with CorpusFiles(a.out_prefix, "gpu_power_watts", "Power draw") as files:
        for g in range(a.gpus):
            level, next_change = 80.0, 0
            samples = []
            for i in range(steps):
                t = start + i * a.interval
                if i >= next_change:
                    level = 75.0 if rng.random() < 0.2 else rng.uniform(350.0, 690.0)
                    next_change = i + rng.randint(1800, 4 * 3600) // a.interval
                daily = 15.0 * math.sin(2 * math.pi * (t % 86400) / 86400)
                centi = round(100 * max(60.0, level + daily + rng.gauss(0.0, 4.0)))
                samples.append((t, "%d.%02d" % (centi // 100, centi % 100)))
            total += files.write_series('{gpu="%d",hostname="%s"}' % (g, a.hostname), samples)
    print("TOTAL_SAMPLES", total)


if __name__ == "__main__":
    main()
