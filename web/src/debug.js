// Debug: one GPU, or one process, over any range. Utilization, memory, clocks and what holds them down,
// power, temperature, PCIe, each process's memory and SM share with its workload; drag on a plot to zoom;
// any PromQL expression as a graph.
import { api } from "./api.js";
import { RangeCache } from "./range_cache.js";
import { timeChart } from "./chart.js";
import { esc, formatTime, formatValue, RANGES } from "./format.js";
import { stepFor, timeWindow } from "./url_state.js";
import { processTable, tableState } from "./process_table.js";

// The per-process panels draw at most this many processes, the ones using the most now (by memory, or by SM
// share): 125 lines on one plot read as none, and each costs the history a series to read over the range.
const TOP_PROCESSES = 10;
// The process table's sort, filter and page, by GPU, kept across refreshes and GPU changes.
const tables = new Map();
// The panels' history answered on earlier refreshes: a refresh asks only for the steps since (the newest
// point is then at most a step old: 12 s over the default hour).
const cache = new RangeCache();

// The panels of a GPU: title, unit, and the expressions (the selector's {gpu="N"} filled in).
const GPU_PANELS = [
  { id: "utilization", title: "Utilization", unit: "ratio", exprs: ["gpu_utilization_ratio{S}", "gpu_memory_utilization_ratio{S}", "gpu_sm_active_ratio{S}", "gpu_tensor_active_ratio{S}"], yMin: 0 },
  { id: "memory", title: "Memory", unit: "bytes", exprs: ["gpu_memory_used_bytes{S}", "gpu_memory_total_bytes{S}"], yMin: 0 },
  { id: "clocks", title: "Clocks", unit: "hertz", exprs: ["gpu_clock_hertz{S}"], yMin: 0 },
  { id: "throttle", title: "Reasons holding the clocks down (1 = active)", unit: "count", exprs: ["gpu_clock_event_active{S} > 0"], yMin: 0 },
  { id: "power", title: "Power", unit: "watts", exprs: ["gpu_power_watts{S}", "gpu_power_limit_watts{S}"], yMin: 0 },
  { id: "temperature", title: "Temperature", unit: "celsius", exprs: ["gpu_temperature_celsius{S}", "gpu_memory_temperature_celsius{S}"] },
  { id: "pcie", title: "PCIe throughput", unit: "bytes_per_second", exprs: ["gpu_pcie_tx_bytes_per_second{S}", "gpu_pcie_rx_bytes_per_second{S}"], yMin: 0 },
  { id: "pcie-errors", title: "PCIe replays and link width", unit: "count", exprs: ["rate(gpu_pcie_replays_total{S}[1m])", "gpu_pcie_link_width{S}"], yMin: 0 },
  { id: "process-memory", title: "Memory per process", unit: "bytes", exprs: ["gpu_process_memory_used_bytes{P}"], yMin: 0, top: "used_memory_bytes" },
  { id: "process-sm", title: "SM share per process", unit: "ratio", exprs: ["gpu_process_sm_utilization_ratio{P}"], yMin: 0, top: "sm_utilization" },
];

const SHORT = {
  gpu_utilization_ratio: "GPU",
  gpu_memory_utilization_ratio: "memory interface",
  gpu_sm_active_ratio: "SM active",
  gpu_tensor_active_ratio: "tensor active",
  gpu_memory_used_bytes: "used",
  gpu_memory_total_bytes: "total",
  gpu_power_watts: "draw",
  gpu_power_limit_watts: "limit",
  gpu_temperature_celsius: "core",
  gpu_memory_temperature_celsius: "memory (HBM)",
  gpu_pcie_tx_bytes_per_second: "transmit",
  gpu_pcie_rx_bytes_per_second: "receive",
  gpu_pcie_link_width: "link width (lanes)",
};

// A series' name in a legend: the metric's short name and the labels that tell it apart.
function seriesLabel(metric, expr) {
  const name = metric.__name__;
  const extra = Object.entries(metric)
    .filter(([k]) => !["__name__", "gpu", "uuid", "type", "instance", "job"].includes(k))
    .map(([k, v]) => (k === "pid" ? `pid ${v}` : k === "process" ? v : `${k}=${v}`));
  if (name === undefined && expr.startsWith("rate(gpu_pcie_replays_total")) return "replays /s";
  const base = SHORT[name] ?? name ?? "";
  return [base, ...extra].filter(Boolean).join(" ") || expr;
}

// The GPU shown when the URL names none (the node's first), kept so that a refresh asks for its processes
// beside the list of GPUs rather than after it.
let firstGpu = null;

// The node's GPUs for the picker, without their processes (1,000 on a node are half a megabyte of JSON), and
// the GPU shown with its processes: two requests at once. A process named without its GPU may be on any of
// them: then every GPU's processes, once, to find it.
async function readGpus(state) {
  if (state.pid && !state.gpu) {
    const gpus = await api("/api/v1/gpus");
    const device = gpus.devices.find((d) => d.processes.some((p) => String(p.pid) === state.pid)) ?? gpus.devices[0];
    const process = device?.processes.find((p) => String(p.pid) === state.pid) ?? null;
    return { gpus, devices: gpus.devices, device, gpu: device ? String(device.index) : undefined, process };
  }
  const wanted = state.gpu || firstGpu;
  const [gpus, one] = await Promise.all([
    api("/api/v1/gpus", { params: { processes: false } }),
    // A GPU the URL names and the node lacks is the view's error; the one kept from before is asked again below.
    wanted ? api("/api/v1/gpus", { params: { gpu: wanted } }).catch((e) => (state.gpu ? Promise.reject(e) : null)) : null,
  ]);
  let gpu = wanted;
  let device = one?.devices.find((d) => String(d.index) === gpu);
  if (!state.gpu && (!device || String(gpus.devices[0]?.index) !== gpu)) {
    // The first time, or the node's first GPU changed: ask for the one the list begins with.
    gpu = gpus.devices.length ? String(gpus.devices[0].index) : undefined;
    firstGpu = gpu ?? null;
    device = gpu === undefined ? undefined : (await api("/api/v1/gpus", { params: { gpu } })).devices[0];
  }
  const process = state.pid ? (device?.processes.find((p) => String(p.pid) === state.pid) ?? null) : null;
  return { gpus, devices: gpus.devices, device, gpu, process };
}

function workload(p) {
  const parts = [];
  if (p.pod_uid) parts.push(`pod ${p.pod_uid}`);
  if (p.container_id) parts.push(`container ${p.container_id.replace(/^(\w+:\/\/)?(.{12}).*$/, "$1$2")}`);
  if (p.slurm_job) parts.push(`Slurm job ${p.slurm_job}`);
  return parts.join(", ");
}

export const debugView = {
  title: "debug",
  refreshSeconds: 10,

  async load(state, ctx) {
    // The GPUs are asked beside the panels, not before them: a GPU's own panels need only its index (the
    // link names it), and only the per-process panels wait for its processes (to pick the ones using the most).
    const reading = readGpus(state);
    const [start, end] = timeWindow(state, "1h");
    const step = stepFor(start, end, 300, ctx.interval);
    const panelOf = async (panel) => {
      const waits = !state.gpu || (panel.top && !state.pid);
      const { gpu, device } = waits ? await reading : { gpu: state.gpu };
      const gpuSel = `gpu="${gpu}"`;
      const onGpu = device?.processes ?? [];
      // One process, all of the GPU's when they are few, else the ones using the most now.
      const procSel = () => {
        if (state.pid) return `pid="${state.pid}"`;
        if (onGpu.length <= TOP_PROCESSES) return gpuSel;
        const top = [...onGpu].sort((a, b) => (b[panel.top] ?? 0) - (a[panel.top] ?? 0)).slice(0, TOP_PROCESSES);
        return `${gpuSel},pid=~"${top.map((p) => p.pid).join("|")}"`;
      };
      const exprs = panel.exprs.map((e) => e.replace("{S}", `{${gpuSel}}`).replace("{P}", `{${procSel()}}`));
      try {
        const results = await Promise.all(exprs.map((e) => cache.query(e, start, end, step)));
        const topOf = panel.top && !state.pid && onGpu.length > TOP_PROCESSES ? onGpu.length : 0;
        return { panel, topOf, series: results.flatMap((r, i) => r.map((s) => ({ ...s, expr: exprs[i] }))) };
      } catch (e) {
        return { panel, series: [], error: e.message }; // one failing panel costs only itself
      }
    };
    const [panels, custom, { gpus, devices, device, gpu, process }] = await Promise.all([
      ctx.historyOff ? [] : Promise.all(GPU_PANELS.map(panelOf)),
      state.expr && !ctx.historyOff
        ? cache.query(state.expr, start, end, step).then((series) => ({ series }), (e) => ({ error: e.message }))
        : null,
      reading,
    ]);
    return { gpus, devices, device, gpu, process, start, end, step, panels, custom };
  },

  draw(root, data, state, ctx, navigate) {
    const { devices, device, gpu, process, start, end, step, panels, custom } = data;
    const zoomed = state.from !== null;
    const range = state.range || "1h";
    // A refresh must not take away an expression being typed.
    const typing = document.activeElement?.id === "expr" ? document.activeElement.value : null;
    root.innerHTML = `
      <div class="controls">
        <label>GPU <select id="gpu">${devices.map((d) => `<option value="${d.index}" ${String(d.index) === gpu ? "selected" : ""}>${d.index} · ${esc(d.name)}</option>`).join("")}</select></label>
        <label>Range <select id="range">${Object.keys(RANGES).map((r) => `<option ${!zoomed && r === range ? "selected" : ""}>${r}</option>`).join("")}${zoomed ? "<option selected>zoomed</option>" : ""}</select></label>
        ${zoomed ? '<button id="unzoom">back to the last ' + esc(range) + "</button>" : ""}
        <span class="muted">${formatTime(start)} – ${formatTime(end)} · step ${step} s · drag on a plot to zoom</span>
      </div>
      ${device ? `<p>GPU ${device.index} <b>${esc(device.name)}</b> <span class="muted">${esc(device.uuid)} · ${esc(device.pci_bus_id)}</span>
        <span class="badge ${esc(device.state === "ok" ? device.health.verdict : device.state)}">${esc(device.state === "ok" ? device.health.verdict : device.state)}</span>
        <span class="muted">${esc(device.health.reasons.join("; "))}</span></p>` : ""}
      ${state.pid ? `<p>Process <b>${esc(state.pid)}</b> ${process ? esc(`${process.name} (${process.user ?? "?"}) ${workload(process)}`) : '<span class="muted">(not on this GPU now)</span>'} <a href="/?view=debug&gpu=${esc(gpu)}">all processes of GPU ${esc(gpu)}</a></p>` : ""}
      <h2>Processes on GPU ${esc(gpu)} now</h2>
      <div id="process-table"></div>
      <h2>Over time</h2>
      <div class="grid" id="panels"></div>
      <h2>PromQL</h2>
      <form id="expr-form" class="controls"><input class="expr" id="expr" name="expr" placeholder="any PromQL expression, e.g. avg by (gpu) (gpu_utilization_ratio)" value="${esc(state.expr)}"><button>Graph</button></form>
      <div class="panel" id="custom"></div>`;

    if (typing !== null) {
      const input = root.querySelector("#expr");
      input.value = typing;
      input.focus();
    }
    if (!tables.has(gpu)) tables.set(gpu, tableState());
    processTable(root.querySelector("#process-table"), device ? device.processes : [], tables.get(gpu), {
      workload,
      onPick: (p) => navigate({ pid: String(p.pid), gpu }),
    });

    const onZoom = (from, to) => navigate({ from, to });
    const grid = root.querySelector("#panels");
    if (ctx.historyOff) grid.innerHTML = '<p class="empty">History is off on this agent: there is nothing to plot over time. The table above is the latest reading.</p>';
    for (const { panel, series, error, topOf } of panels) {
      const div = document.createElement("div");
      div.className = "panel";
      div.innerHTML = `<h3>${esc(panel.title)}${topOf ? ` <span class="muted">(the ${TOP_PROCESSES} of ${topOf} using the most now)</span>` : ""}</h3><div class="chart" data-panel="${panel.id}"></div>`;
      grid.append(div);
      if (error) {
        div.querySelector(".chart").innerHTML = `<p class="error">${esc(error)}</p>`;
        continue;
      }
      timeChart(div.querySelector(".chart"), series, { unit: panel.unit, label: (m, r) => seriesLabel(m, r.expr), onZoom, yMin: panel.yMin });
    }
    const customDiv = root.querySelector("#custom");
    if (!state.expr) customDiv.innerHTML = '<p class="empty">Type an expression above: it is drawn over the same range.</p>';
    else if (ctx.historyOff) customDiv.innerHTML = '<p class="empty">History is off: range queries cannot be answered.</p>';
    else if (custom.error) customDiv.innerHTML = `<p class="error">${esc(custom.error)}</p>`;
    else {
      customDiv.innerHTML = '<div class="chart" data-panel="custom"></div>';
      timeChart(customDiv.querySelector(".chart"), custom.series, {
        label: (m) => Object.entries(m).filter(([k]) => k !== "instance" && k !== "job").map(([k, v]) => (k === "__name__" ? v : `${k}="${v}"`)).join(" ") || state.expr,
        onZoom,
      });
    }

    root.querySelector("#gpu").addEventListener("change", (e) => navigate({ gpu: e.target.value, pid: "" }));
    root.querySelector("#range").addEventListener("change", (e) => navigate({ range: e.target.value, from: null, to: null }));
    root.querySelector("#unzoom")?.addEventListener("click", () => navigate({ from: null, to: null }));
    root.querySelector("#expr-form").addEventListener("submit", (e) => {
      e.preventDefault();
      navigate({ expr: root.querySelector("#expr").value.trim() });
    });
  },
};
