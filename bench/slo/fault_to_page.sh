#!/usr/bin/env bash
# Time from a GPU fault to the SLO page in Alertmanager: gpuwatch evaluating the SLOs in the agent (scraping the
# services every 15 s as Prometheus does, and every 5 s), side by side in the same run with the conventional
# pipeline: a real Prometheus scraping the same services every 15 s and evaluating Sloth-style rules every 15 s,
# and another every 30 s, into the same Alertmanager. Sloth is not a Debian package: the rules are
# `gpuwatch rules slo`'s, which keep Sloth's names and multiwindow alerts (docs/slo.md, "Commands").
#
# The simulated node (scaled mode, scale 1, one shared epoch): four Triton servers (`gpuwatch sim serve`), one
# per GPU, 100 requests/s with 0.2% errors, an availability SLO of 99% each. At t = 60.1, 60.35, 60.6 and
# 60.85 s an XID 43 on GPU 0..3 fails every request of its server for 30 s: four faults at different phases of
# the scrape and evaluation intervals. A page needs 14.4x over 1h and 5m: with a minute of clean traffic
# before, about 10 s of failures by the windows' arithmetic, whoever evaluates them. Alertmanager's
# GET /api/v2/alerts is polled every 50 ms. Writes bench/results/slo_fault_to_page.json and .md.
#
# Usage: bench/slo/fault_to_page.sh BUILD_DIR. Knob: SLO_BENCH_PORT_BASE (19580).
# Every server listens on 127.0.0.1 only and is stopped (by PID) on exit; data lives in a temp dir.
set -euo pipefail

build=${1:-build}
die() { echo "fault_to_page: $*" >&2; exit 1; }
[ -d "$build" ] || die "no build directory $build"
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
results="$here/../results"
port_base=${SLO_BENCH_PORT_BASE:-19580}
gpuwatch="$build/gpuwatch"
for tool in prometheus prometheus-alertmanager curl python3; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done
[ -x "$gpuwatch" ] || die "$gpuwatch is missing: run make build"

# shellcheck source=bench/bench_lib.sh
source "$here/../bench_lib.sh"  # $work, $pids, stopped and removed on exit

am_port=$port_base
agent15_port=$((port_base + 1)); agent5_port=$((port_base + 2))
prom15_port=$((port_base + 3)); prom30_port=$((port_base + 4))
service_port=$((port_base + 10))  # .. +13

{
  echo "node: {hostname: slo-bench, seed: 7, time_scale: 1, mode: scaled}"
  echo "devices: [{model: H200, count: 4}]"
  echo "processes:"
  for g in 0 1 2 3; do
    echo "  - {pid: $((71000 + g)), gpu: $g, name: tritonserver, cmdline: [tritonserver, --metrics-port=$((service_port + g))], memory: {segments: [{at: 0s, value: 20GiB}]}}"
  done
  echo "services:"
  for g in 0 1 2 3; do
    echo "  - {model: m$g, kind: triton, pid: $((71000 + g)), port: $((service_port + g)), traffic: {value: 100}, latency: 40ms, errors: 0.002}"
  done
  echo "faults:"
  for g in 0 1 2 3; do
    echo "  - {type: xid, gpu: $g, code: 43, at: $((60100 + 250 * g))ms}"
  done
} >"$work/node.yaml"

{
  echo 'version: "prometheus/v1"'
  echo 'service: "triton"'
  echo 'slos:'
  for g in 0 1 2 3; do
    cat <<YAML
  - name: "m$g-availability"
    objective: 99
    sli:
      events:
        error_query: sum(rate(nv_inference_request_failure{model="m$g"}[{{.window}}]))
        total_query: sum(rate(nv_inference_request_success{model="m$g"}[{{.window}}])) + sum(rate(nv_inference_request_failure{model="m$g"}[{{.window}}]))
YAML
  done
} >"$work/slo.yaml"
"$gpuwatch" rules slo "$work/slo.yaml" >"$work/rules.yml"

targets=$(for g in 0 1 2 3; do printf "'127.0.0.1:%s'," $((service_port + g)); done)
for spec in "15 $prom15_port" "30 $prom30_port"; do
  set -- $spec
  cat >"$work/prometheus-$1s.yml" <<YAML
global: {scrape_interval: 15s, evaluation_interval: ${1}s, external_labels: {pipeline: prometheus-rules-${1}s}}
rule_files: [$work/rules.yml]
alerting:
  alertmanagers: [{static_configs: [{targets: ['127.0.0.1:$am_port']}]}]
scrape_configs:
  - job_name: triton
    static_configs: [{targets: [${targets%,}]}]
YAML
done
for interval in 15 5; do
  {
    echo "sim_scenario: $work/node.yaml"
    echo "kmsg: \"\""
    echo "interval: 1s"
    echo "slo_files: $work/slo.yaml"
    echo "alertmanager_url: http://127.0.0.1:$am_port"
    echo "alert_labels: pipeline=gpuwatch-scrape-${interval}s"
    echo "data_dir: $work/agent-${interval}s"
    echo "log_level: warn"
    echo "scrape:"
    echo "  interval: ${interval}s"
    echo "  timeout: 2s"
    echo "  targets:"
    for g in 0 1 2 3; do echo "    - {job: triton, url: http://127.0.0.1:$((service_port + g))/metrics}"; done
  } >"$work/agent-${interval}s.yaml"
done
cat >"$work/alertmanager.yml" <<YAML
route: {receiver: none}
receivers: [{name: none}]
YAML

prometheus-alertmanager --config.file="$work/alertmanager.yml" --storage.path="$work/am" \
  --web.listen-address="127.0.0.1:$am_port" --cluster.listen-address= --log.level=warn 2>"$work/am.log" &
pids+=($!)
wait_ready "http://127.0.0.1:$am_port/-/ready" $!

# Scenario time 0 a few seconds from now, so that every process is up before the traffic's first minute ends.
epoch=$(python3 -c 'import time; print(f"{time.time() + 5:.3f}")')
export GPUWATCH_SIM_EPOCH=$epoch
"$gpuwatch" sim serve --sim-scenario "$work/node.yaml" 2>"$work/serve.log" &
pids+=($!)
for interval in 15 5; do
  port_var="agent${interval}_port"
  "$gpuwatch" agent --config "$work/agent-${interval}s.yaml" --listen "127.0.0.1:${!port_var}" \
    2>"$work/agent-${interval}s.log" &
  pids+=($!)
  wait_ready "http://127.0.0.1:${!port_var}/readyz" $!
done
for interval in 15 30; do
  port_var="prom${interval}_port"
  prometheus --config.file="$work/prometheus-${interval}s.yml" --storage.tsdb.path="$work/prom-${interval}s" \
    --web.listen-address="127.0.0.1:${!port_var}" --log.level=warn 2>"$work/prom-${interval}s.log" &
  pids+=($!)
  wait_ready "http://127.0.0.1:${!port_var}/-/ready" $!
done

mkdir -p "$results"
python3 - "$am_port" "$epoch" "$results" <<'PY'
import json, statistics, sys, time, urllib.request
am_port, epoch, results = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
faults = {f"m{g}-availability": 60.1 + 0.25 * g for g in range(4)}
pipelines = ["gpuwatch-scrape-5s", "gpuwatch-scrape-15s", "prometheus-rules-15s", "prometheus-rules-30s"]
seen, early = {}, []
deadline = epoch + 61 + 120
while time.time() < deadline and len(seen) < len(pipelines) * len(faults):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{am_port}/api/v2/alerts", timeout=2) as r:
            now = time.time()
            for a in json.load(r):
                l = a["labels"]
                key = (l.get("pipeline"), l.get("slo"))
                if l.get("severity") != "page" or l.get("alertname") != "SloErrorBudgetBurn":
                    continue
                if key[0] in pipelines and key[1] in faults and key not in seen:
                    seen[key] = now - (epoch + faults[key[1]])
                    if seen[key] < 0:
                        early.append(key)
    except OSError:
        pass
    time.sleep(0.05)
if early:
    sys.exit(f"fault_to_page: pages before their fault: {early}")
missing = [f"{p} {s}" for p in pipelines for s in faults if (p, s) not in seen]
if missing:
    sys.exit(f"fault_to_page: no page for {missing} within 120 s of the faults")
summary = {}
for p in pipelines:
    v = [seen[(p, s)] for s in faults]
    summary[p] = {"per_fault_s": v, "mean_s": statistics.mean(v), "max_s": max(v)}
json.dump({"epoch_unix": epoch, "faults_at_s": faults, "pipelines": summary},
          open(f"{results}/slo_fault_to_page.json", "w"), indent=1)
fmt = lambda p: f"{summary[p]['mean_s']:.1f} s mean, {summary[p]['max_s']:.1f} s max"
ratio = lambda p: summary[p]["mean_s"] / summary["gpuwatch-scrape-15s"]["mean_s"]
md = ["| pipeline | GPU fault to SLO page in Alertmanager (4 faults) | mean vs gpuwatch scraping every 15 s |",
      "| --- | --- | --- |",
      f"| gpuwatch, scraping every 5 s, SLOs evaluated every 1 s snapshot | {fmt('gpuwatch-scrape-5s')} | {ratio('gpuwatch-scrape-5s'):.2f}x |",
      f"| gpuwatch, scraping every 15 s | {fmt('gpuwatch-scrape-15s')} | 1.00x |",
      f"| Prometheus scraping every 15 s, Sloth-style rules every 15 s | {fmt('prometheus-rules-15s')} | {ratio('prometheus-rules-15s'):.2f}x |",
      f"| Prometheus scraping every 15 s, Sloth-style rules every 30 s | {fmt('prometheus-rules-30s')} | {ratio('prometheus-rules-30s'):.2f}x |"]
open(f"{results}/slo_fault_to_page.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
