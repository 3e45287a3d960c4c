// Executive: what the GPUs did over days. Utilization and the share of idle GPUs, GPU-hours by workload,
// and the cost and SLO budgets where the agent has them configured (else what to configure).
import { api, query, queryRange } from "./api.js";
import { timeChart } from "./chart.js";
import { esc, formatTime, formatValue } from "./format.js";
import { stepFor, timeWindow } from "./url_state.js";

const EXEC_RANGES = ["24h", "7d", "30d"];
// A GPU under this utilization counts as idle.
const IDLE_BELOW = 0.05;
// The labels a workload is named by, most telling first; per-process series carry them where the agent knows
// them. Without any, GPU-hours are grouped by process name.
const WORKLOAD_LABELS = ["namespace", "pod", "slurm_job", "container", "user", "process"];

const scalar = (result) => (result.length ? Number(result[0].value[1]) : null);

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
    const seconds = Math.round(end - start);
    const step = stepFor(start, end, 300, ctx.interval);
    // Subqueries sample at `sub`: fine enough to integrate, coarse enough for 30 days.
    const sub = stepFor(start, end, 2000, ctx.interval);
    let historyError = null;
    const labels = ctx.historyOff
      ? []
      : await api("/api/v1/labels", { params: { "match[]": "gpu_process_sm_utilization_ratio", start, end } })
          .then((r) => r.data)
          .catch(() => []);
    const by = WORKLOAD_LABELS.find((l) => labels.includes(l)) ?? "process";
    const history = ctx.historyOff
      ? Promise.resolve([[], [], [], [], [], [], []])
      : Promise.all([
          queryRange(`avg(avg_over_time(gpu_utilization_ratio[${step}s]))`, start, end, step),
          queryRange(`avg(avg_over_time((gpu_utilization_ratio < bool ${IDLE_BELOW})[${step}s:${sub}s]))`, start, end, step),
          query(`avg(avg_over_time(gpu_utilization_ratio[${seconds}s:${sub}s]))`, end),
          query(`avg(avg_over_time((gpu_utilization_ratio < bool ${IDLE_BELOW})[${seconds}s:${sub}s]))`, end),
          // GPU-hours busy and GPU-hours seen: integrals over the subquery's samples.
          query(`sum(sum_over_time(gpu_utilization_ratio[${seconds}s:${sub}s])) * ${sub / 3600}`, end),
          query(`sum(count_over_time(gpu_up[${seconds}s:${sub}s])) * ${sub / 3600}`, end),
          query(`sort_desc(sum by (${by}) (sum_over_time(gpu_process_sm_utilization_ratio[${seconds}s:${sub}s])) * ${sub / 3600})`, end),
        ]).catch((e) => {
          historyError = e.message; // the history failing costs only its figures
          return [[], [], [], [], [], [], []];
        });
    const [gpus, [util, idle, avgUtil, idleShare, busyHours, seenHours, byWorkload], cost, slos] = await Promise.all([
      api("/api/v1/gpus"),
      history,
      optional("/api/v1/cost", { start, end }),
      optional("/api/v1/slos"),
    ]);
    return { range, start, end, gpus, util, idle, avgUtil, idleShare, busyHours, seenHours, byWorkload, by, cost, slos, historyError };
  },

  draw(root, d, state, ctx, navigate) {
    const gpuCount = d.gpus.devices.length;
    const up = d.gpus.devices.filter((x) => x.state === "ok").length;
    const workloads = d.byWorkload.filter((r) => Number(r.value[1]) > 0);
    const maxHours = workloads.length ? Number(workloads[0].value[1]) : 1;
    root.innerHTML = `
      <div class="controls">
        <label>Range <select id="range">${EXEC_RANGES.map((r) => `<option ${r === d.range ? "selected" : ""}>${r}</option>`).join("")}</select></label>
        <span class="muted">${formatTime(d.start)} – ${formatTime(d.end)}</span>
      </div>
      <div class="tiles">
        <div class="tile"><div class="muted">GPUs answering now</div><div class="v" id="tile-up">${up} / ${gpuCount}</div></div>
        <div class="tile"><div class="muted">Average utilization</div><div class="v" id="tile-util">${formatValue("ratio", scalar(d.avgUtil))}</div></div>
        <div class="tile"><div class="muted">Idle share (GPU under ${IDLE_BELOW * 100} %)</div><div class="v" id="tile-idle">${formatValue("ratio", scalar(d.idleShare))}</div></div>
        <div class="tile"><div class="muted">Busy GPU-hours of ${formatValue("hours", scalar(d.seenHours))} watched</div><div class="v" id="tile-hours">${formatValue("hours", scalar(d.busyHours))}</div></div>
        <div class="tile"><div class="muted">Active workloads now</div><div class="v" id="tile-workloads">${new Set(d.gpus.devices.flatMap((x) => x.processes.map((p) => p.slurm_job ?? p.pod_uid ?? p.container_id ?? p.pid))).size}</div></div>
      </div>
      <div class="grid">
        <div class="panel"><h3>Cluster utilization</h3><div class="chart" data-panel="cluster-utilization"></div></div>
        <div class="panel"><h3>Share of GPUs idle</h3><div class="chart" data-panel="idle-share"></div></div>
      </div>
      <h2>GPU-hours by workload <span class="muted">(SM time, grouped by ${esc(d.by)})</span></h2>
      <table id="workloads"><thead><tr><th>${esc(d.by)}</th><th class="num">GPU-hours</th><th></th></tr></thead><tbody>${
        workloads.length === 0
          ? `<tr><td colspan="3" class="empty">${ctx.historyOff ? "History is off: no GPU-hours to count." : "No process used a GPU in this range."}</td></tr>`
          : workloads
              .slice(0, 20)
              .map((r) => {
                const v = Number(r.value[1]);
                return `<tr class="workload"><td>${esc(r.metric[d.by] ?? "(none)")}</td><td class="num">${formatValue("hours", v)}</td>
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
        <div class="panel" id="slos"><h3>SLO budgets</h3>${
          d.slos === null || (Array.isArray(d.slos) && d.slos.length === 0)
            ? '<p class="empty">No SLO is configured on this agent. Point it at Sloth (prometheus/v1) or OpenSLO files in gpuwatch.yaml; this panel then shows each SLO\'s budget remaining and burn rate.</p>'
            : d.slos.error
              ? `<p class="error">${esc(d.slos.error)}</p>`
              : table(d.slos)
        }</div>
      </div>`;
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
