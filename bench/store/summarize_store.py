#!/usr/bin/env python3
"""Turns store_bench.sh's results (key=value lines and codec_bench reports) into store.json and a Markdown
table on stdout.

  summarize_store.py RESULTS.env CODEC_SHARED.txt CODEC_INCIDENTS.txt OUT.json > store.md
"""
import json
import sys


def read_env(path):
    out = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                out[k] = v
    return out


def class_table(path):
    """The 'class of series' rows of a codec_bench report: {class: {series, samples, share, bytes, bps}}."""
    rows, inside = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("| class of series"):
                inside = True
                continue
            if inside:
                if not line.startswith("|"):
                    break
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if cells[0].startswith("---"):
                    continue
                rows[cells[0]] = {"series": int(cells[1]), "samples": int(cells[2]), "share": cells[3],
                                  "bytes": int(cells[4]), "bytes_per_sample": float(cells[5])}
    return rows


def fmt_rate(v):
    try:
        v = float(v)
    except (TypeError, ValueError):
        return v or "n/a"
    return "%.2f M samples/s" % (v / 1e6) if v >= 1e6 else "%.0f k samples/s" % (v / 1e3)


def main():
    env = read_env(sys.argv[1])
    shared, incidents = class_table(sys.argv[2]), class_table(sys.argv[3])
    with open(sys.argv[4], "w") as f:
        json.dump({"results": env, "codec_classes_shared": shared, "codec_classes_incidents": incidents}, f,
                  indent=2, sort_keys=True)
        f.write("\n")
    g = env.get
    print("## History store side by side (%s samples, shared corpus)\n" % g("samples", "?"))
    print("| figure | gpuwatch | gpuwatch query engine, data in memory | Prometheus 2.42 | VictoriaMetrics 1.79 |")
    print("| --- | --- | --- | --- | --- |")
    print("| bytes/sample, whole data dir | %s | codec alone: %s | %s | %s |" % (
        g("gw_bytes_per_sample", g("gw_import", "n/a")), g("codec_bytes_per_sample", "n/a"),
        g("prom_bytes_per_sample", "n/a"), g("vm_bytes_per_sample", "n/a")))
    if g("jitter_ms"):
        print("| bytes/sample, whole data dir, the corpus with timestamps 0..%s ms late | %s | - | - | %s |" % (
            g("jitter_ms"), g("gw_bytes_per_sample_jitter", "n/a"), g("vm_bytes_per_sample_jitter", "n/a")))
    print("| ingest | %s | parse only: %s a CPU second | %s | %s |" % (
        fmt_rate(g("gw_import_samples_per_s", g("gw_import"))), fmt_rate(g("parse_om_samples_per_cpu_s")),
        fmt_rate(g("prom_import_samples_per_s")), fmt_rate(g("vm_import_samples_per_s"))))
    for key, label in (("a", "`gpu_temperature_celsius{gpu=\"3\"}` 24 h, step 10 s"),
                       ("b", "`avg by (gpu) (gpu_utilization_ratio)` 24 h, step 60 s"),
                       ("c", "`max_over_time(gpu_memory_used_bytes[5m])` 24 h, step 60 s"),
                       ("d", "`sum by (gpu) (rate(gpu_energy_joules_total[5m]))` 24 h, step 60 s"),
                       ("e", "`sum by (gpu) (gpu_process_memory_used_bytes{process_name=~\"worker-.*\"})` "
                             "1,000 process series at 30 s, 24 h, step 60 s"),
                       ("f", "`avg by (gpu) (gpu_power_watts)` 30 days (a second node's month at 10 s and "
                             "the shared corpus' day), step 5 m")):
        gw = g("q_gw_%s_ms" % key)
        eng = g("q_engine_%s_ms" % key)
        print("| %s | %s | %s | %s ms | %s ms (cache off) |" % (
            label, (gw + " ms") if gw else g("gw_queries", "n/a"), (eng + " ms") if eng else "n/a",
            g("q_prom_%s_ms" % key, "n/a"),
            g("q_vm_%s_ms" % key, "n/a")))
        print("| the same, first query (cold) | %s ms | | %s ms | %s ms |" % (
            g("q_gw_%s_cold_ms" % key, "n/a"), g("q_prom_%s_cold_ms" % key, "n/a"),
            g("q_vm_%s_cold_ms" % key, "n/a")))
    print("\nImport parse speed (one core): text 0.0.4 %s, OpenMetrics %s a CPU second; "
          "`import --dry-run` end to end %s (wall)." % (
              fmt_rate(g("parse_prom_samples_per_cpu_s")), fmt_rate(g("parse_om_samples_per_cpu_s")),
              fmt_rate(g("import_dry_run_samples_per_s"))))
    print("\n## Bytes/sample by class of series (codec, 2 h blocks)\n")
    print("| class | shared corpus: share of samples | bytes/sample | incidents scenario: share | bytes/sample |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for c in ("constant", "integer-valued", "decimal", "noisy float"):
        a, b = shared.get(c), incidents.get(c)
        print("| %s | %s | %s | %s | %s |" % (
            c, a["share"] if a else "-", "%.3f" % a["bytes_per_sample"] if a else "-",
            b["share"] if b else "-", "%.3f" % b["bytes_per_sample"] if b else "-"))
    rss = g("sim_agent_rss_kb", "n/a")
    print("\nSecond corpus: %s series, %s samples; codec overall %s bytes/sample; agent RSS holding it: %s." % (
        g("sim_series", "?"), g("sim_samples", "?"), g("sim_codec_bytes_per_sample", "?"),
        rss + " kB" if rss.isdigit() else rss))


if __name__ == "__main__":
    main()
