// Executive: what the GPUs did over days. Utilization and the share of idle GPUs, GPU-hours by workload,
// and the cost and SLO budgets where the agent has them configured (else what to configure).
import { api, query } from "./api.js";
import { RangeCache } from "./range_cache.js";
import { timeChart } from "./chart.js";
import { esc, formatTime, formatValue } from "./format.js";
import { sloPanel } from "./slo_panel.js";
import { stepFor, timeWindow } from "./url_state.js";

const EXEC_RANGES = ["24h", "7d", "30d"];
// A GPU under this utilization counts as idle.
const IDLE_BELOW = 0.05;
// The labels a workload is named by, most telling first; per-process series carry them where the agent knows
// them. Without any, GPU-hours are grouped by process name.
const WORKLOAD_LABELS = ["namespace", "pod", "slurm_job", "container", "user", "process"];

// The samples of the GPUs' utilization, and the workloads' sums by block, answered on earlier refreshes.
const utilCache = new RangeCache();
const workloadCache = new RangeCache();
const headHoursCache = new RangeCache(); // the same expression and step as the tail's: a cache each
const tailHoursCache = new RangeCache();

// The cluster's utilization and idle share per plot step and over the whole range, and the GPU-hours busy
// and watched, from each GPU's utilization sampled every `sub` seconds.
function utilization(samples, step, sub) {
  const buckets = new Map(); // plot step -> [sum, idle, count]
  let sum = 0;
  let idle = 0;
  let count = 0;
  for (const s of samples) {
    for (const [t, raw] of s.values) {
      const v = Number(raw);
      const b = Math.floor(t / step) * step;
      const acc = buckets.get(b) ?? [0, 0, 0];
      acc[0] += v;
      acc[1] += v < IDLE_BELOW ? 1 : 0;
      acc[2] += 1;
      buckets.set(b, acc);
      sum += v;
      idle += v < IDLE_BELOW ? 1 : 0;
      count += 1;
    }
  }
  const times = [...buckets.keys()].sort((a, b) => a - b);
  const series = (i) => [{ metric: {}, values: times.map((t) => [t, buckets.get(t)[i] / buckets.get(t)[2]]) }];
  return {
    util: count ? series(0) : [],
    idle: count ? series(1) : [],
    avgUtil: count ? sum / count : null,
    idleShare: count ? idle / count : null,
    busyHours: count ? (sum * sub) / 3600 : null,
    seenHours: count ? (count * sub) / 3600 : null,
  };
}

// The per-process SM share's samples at the multiples of `sub` from the first whole "hour" (a 720th of the
// range: 1 h 5 min at 30 days) after `start` to `end`, summed by every label that can name a workload (the most
// telling one present is chosen from the answer: no question for the label names). Summing 1,000 processes'
// samples over 30 days reads every one of them, and any read of 1,000 series costs about 200 ms however short,
// so the range is cut where a refresh can keep what it was answered: blocks of 24 hours in the middle, hours at
// both ends, each kind one range query through a cache (a refresh asks only for a block or an hour just
// closed), and the partial hour at the end asked whole. The partial hour at the start is left out (under a
// 720th of the range): asking it would read 1,000 series at every refresh. Each part's subquery leaves out the
// sample at its left edge, which the part before it holds: the parts meet exactly.
async function workloadSums(start, end, sub) {
  const by = `sum by (${WORKLOAD_LABELS.join(", ")})`;
  // Ranges in milliseconds: the parts meet whatever fraction of a second `start` and `end` have.
  const sums = (ms) => `${by} (sum_over_time(gpu_process_sm_utilization_ratio[${ms}ms:${sub}s]))`;
  const hour = sub * Math.max(1, Math.round((end - start) / 720 / sub));
  const block = 24 * hour;
  const first = Math.ceil((start + block) / block) * block; // the first block ends here
  const last = Math.floor(end / block) * block; // and the last one here
  const hoursFrom = Math.ceil((start + hour) / hour) * hour; // the first whole hour ends here
  const hoursTo = Math.floor(end / hour) * hour; // and the last one here
  const blocks = last >= first; // else the range is hours only
  const tail = Math.round((end - hoursTo) * 1000) - 1;
  const parts = await Promise.all([
    blocks ? workloadCache.query(sums(block * 1000 - 1), start + block, end, block) : [],
    // The hours before the first block and after the last (all of them when there is no block).
    headHoursCache.query(sums(hour * 1000 - 1), start + hour, blocks ? first - block : end, hour),
    blocks && hoursTo > last ? tailHoursCache.query(sums(hour * 1000 - 1), last + hour, end, hour) : [],
    tail > 0 ? query(sums(tail), end) : [],
  ]);
  const total = new Map();
  const add = (metric, v) => {
    const key = JSON.stringify(metric);
    const t = total.get(key) ?? { metric, sum: 0 };
    t.sum += Number(v);
    total.set(key, t);
  };
  for (const part of parts.slice(0, 3)) for (const s of part) for (const [, v] of s.values) add(s.metric, v);
  for (const r of parts[3]) add(r.metric, r.value[1]);
  return { sums: [...total.values()], from: hoursFrom - hour };
}

// GPU-hours of SM time by the workload label `by`, most first: the sums of `sub`-second samples.
function workloadHours(sums, by, sub) {
  const hours = new Map();
  for (const r of sums) {
    const name = r.metric[by] ?? "(none)";
    hours.set(name, (hours.get(name) ?? 0) + (r.sum * sub) / 3600);
  }
  return [...hours].map(([name, h]) => ({ name, hours: h })).sort((a, b) => b.hours - a.hours);
}

// An optional API of a later feature: null when this agent does not serve it (404) or has nothing configured.
async function optional(path, params) {
  try {
    return (await api(path, { params })).data;
  } catch (e) {
    if (e.status === 404 || e.status === 501) return null;
    return { error: e.message };
  }
}

function table(rows) {
  if (!Array.isArray(rows) || rows.length === 0) return "";
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r).filter((k) => typeof r[k] !== "object" || r[k] === null)))];
  return `<table><thead><tr>${keys.map((k) => `<th>${esc(k)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${keys.map((k) => `<td>${esc(typeof r[k] === "number" ? Number(r[k].toFixed(4)) : r[k])}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

export const executiveView = {
  title: "executive",
  refreshSeconds: 60,

  async load(state, ctx) {
    const range = EXEC_RANGES.includes(state.range) ? state.range : "7d";
    const [start, end] = timeWindow({ ...state, range }, "7d");
    // Each GPU's utilization sampled at `sub`, fine enough to integrate and coarse enough for 30 days: every
    // figure and both plots come from these samples, read once (and on later refreshes, only their tail).
    const sub = stepFor(start, end, 2000, ctx.interval);
    // The plots' step: a whole number of samples, about 300 points.
    const step = sub * Math.max(1, Math.round(stepFor(start, end, 300, ctx.interval) / sub));
    let historyError = null;
    const history = ctx.historyOff
      ? Promise.resolve([[], { sums: [], from: start }])
      : Promise.all([utilCache.query("gpu_utilization_ratio", start, end, sub), workloadSums(start, end, sub)]).catch((e) => {
          historyError = e.message; // the history failing costs only its figures
          return [[], { sums: [], from: start }];
        });
    const [gpus, [samples, { sums: byWorkload, from: workloadsFrom }], cost, slos] = await Promise.all([
      api("/api/v1/gpus"),
      history,
      optional("/api/v1/cost", { start, end }),
      optional("/api/v1/slos"),
    ]);
    const by = WORKLOAD_LABELS.find((l) => byWorkload.some((r) => r.metric[l] !== undefined)) ?? "process";
    return { range, start, end, gpus, ...utilization(samples, step, sub), workloads: workloadHours(byWorkload, by, sub), workloadsFrom, by, cost, slos, historyError };
  },

  draw(root, d, state, ctx, navigate) {
    const gpuCount = d.gpus.devices.length;
    const up = d.gpus.devices.filter((x) => x.state === "ok").length;
    const workloads = d.workloads.filter((w) => w.hours > 0);
    const maxHours = workloads.length ? workloads[0].hours : 1;
    root.innerHTML = `
      <div class="controls">
        <label>Range <select id="range">${EXEC_RANGES.map((r) => `<option ${r === d.range ? "selected" : ""}>${r}</option>`).join("")}</select></label>
        <span class="muted">${formatTime(d.start)} – ${formatTime(d.end)}</span>
      </div>
      <div class="tiles">
        <div class="tile"><div class="muted">GPUs answering now</div><div class="v" id="tile-up">${up} / ${gpuCount}</div></div>
        <div class="tile"><div class="muted">Average utilization</div><div class="v" id="tile-util">${formatValue("ratio", d.avgUtil)}</div></div>
        <div class="tile"><div class="muted">Idle share (GPU under ${IDLE_BELOW * 100} %)</div><div class="v" id="tile-idle">${formatValue("ratio", d.idleShare)}</div></div>
        <div class="tile"><div class="muted">Busy GPU-hours of ${formatValue("hours", d.seenHours)} watched</div><div class="v" id="tile-hours">${formatValue("hours", d.busyHours)}</div></div>
        <div class="tile"><div class="muted">Active workloads now</div><div class="v" id="tile-workloads">${new Set(d.gpus.devices.flatMap((x) => x.processes.map((p) => p.slurm_job ?? p.pod_uid ?? p.container_id ?? p.pid))).size}</div></div>
      </div>
      <div class="grid">
        <div class="panel"><h3>Cluster utilization</h3><div class="chart" data-panel="cluster-utilization"></div></div>
        <div class="panel"><h3>Share of GPUs idle</h3><div class="chart" data-panel="idle-share"></div></div>
      </div>
      <h2>GPU-hours by workload <span class="muted">(SM time, grouped by ${esc(d.by)}, from ${formatTime(d.workloadsFrom)})</span></h2>
      <table id="workloads"><thead><tr><th>${esc(d.by)}</th><th class="num">GPU-hours</th><th></th></tr></thead><tbody>${
        workloads.length === 0
          ? `<tr><td colspan="3" class="empty">${ctx.historyOff ? "History is off: no GPU-hours to count." : "No process used a GPU in this range."}</td></tr>`
          : workloads
              .slice(0, 20)
              .map((w) => {
                const v = w.hours;
                return `<tr class="workload"><td>${esc(w.name)}</td><td class="num">${formatValue("hours", v)}</td>
                  <td><div style="background:#58a6ff;height:10px;width:${Math.max(1, (200 * v) / maxHours)}px"></div></td></tr>`;
              })
              .join("")
      }</tbody></table>
      <div class="grid">
        <div class="panel" id="cost"><h3>Cost</h3>${
          d.cost === null
            ? '<p class="empty">Cost is not configured on this agent. Give GPU-hour prices by model (and optionally an energy price per kWh) in gpuwatch.yaml; this panel then shows cost per workload and team, idle cost apart.</p>'
            : d.cost.error
              ? `<p class="error">${esc(d.cost.error)}</p>`
              : table(Array.isArray(d.cost) ? d.cost : d.cost.workloads ?? d.cost.teams ?? [d.cost])
        }</div>
      </div>
      <div class="panel" id="slos"><h3>SLO budgets</h3>${sloPanel(d.slos)}</div>`;
    if (ctx.historyOff || d.historyError) {
      const why = ctx.historyOff ? "History is off: nothing to plot over days." : `The history could not be read: ${esc(d.historyError)}`;
      for (const el of root.querySelectorAll(".chart")) el.innerHTML = `<p class="${ctx.historyOff ? "empty" : "error"}">${why}</p>`;
    } else {
      timeChart(root.querySelector('[data-panel="cluster-utilization"]'), d.util, { unit: "ratio", label: () => "average of all GPUs", yMin: 0, onZoom: null });
      timeChart(root.querySelector('[data-panel="idle-share"]'), d.idle, { unit: "ratio", label: () => "GPUs idle", yMin: 0, onZoom: null });
    }
    root.querySelector("#range").addEventListener("change", (e) => navigate({ range: e.target.value, from: null, to: null }));
  },
};
