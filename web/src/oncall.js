// On-call: is anything broken now, and what happened. A row per GPU (health, the last hour's utilization),
// the alerts firing and pending with their runbooks, the node's events on a timeline, the silences.
import { api } from "./api.js";
import { sparkline } from "./chart.js";
import { loadEvents } from "./events.js";
import { esc, formatAgo, formatTime, formatValue, RANGES } from "./format.js";
import { stepFor, timeWindow } from "./url_state.js";
import { RangeCache } from "./range_cache.js";

// The sparklines' and the events' history answered on earlier refreshes: a refresh asks for the tail.
const cache = new RangeCache();

const metric = (device, name, labels = {}) => {
  const samples = device.metrics[name] ?? [];
  const s = samples.find((x) => Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s ? s.value : null;
};

function runbookLink(alert) {
  const url = alert.annotations.runbook_url;
  if (!url) return '<span class="muted">no runbook</span>';
  // Read inside the dashboards (rendered), or as the agent serves it (Markdown).
  return `<a class="runbook" href="/?view=runbook&name=${encodeURIComponent(alert.labels.alertname)}">runbook</a>
    <a class="muted" href="${esc(url)}" target="_blank" rel="noopener">md</a>`;
}

async function silenceAlert(alert, hours, redraw) {
  const now = new Date();
  const matchers = ["alertname", "gpu"]
    .filter((k) => alert.labels[k] !== undefined)
    .map((k) => ({ name: k, value: alert.labels[k], isRegex: false, isEqual: true }));
  try {
    await api("/api/v1/silences", {
      method: "POST",
      json: {
        matchers,
        startsAt: now.toISOString(),
        endsAt: new Date(now.getTime() + hours * 3600e3).toISOString(),
        createdBy: "gpuwatch dashboards",
        comment: "silenced from the on-call view",
      },
    });
  } catch (e) {
    alert.silenceError = e.message;
  }
  redraw();
}

async function expireSilence(id, redraw) {
  try {
    await api(`/api/v1/silence/${encodeURIComponent(id)}`, { method: "DELETE" });
  } catch (e) {
    window.alert(`The silence was not expired: ${e.message}`);
  }
  redraw();
}

export const oncallView = {
  title: "on-call",
  refreshSeconds: 5,

  async load(state, ctx) {
    const now = Date.now() / 1000;
    const [start, end] = timeWindow(state, "1h", now);
    const step = stepFor(start, end, 240, ctx.interval);
    const history = ctx.historyOff
      ? Promise.resolve([[], []])
      : Promise.all([
          cache.query("gpu_utilization_ratio", now - 3600, now, stepFor(now - 3600, now, 120, ctx.interval), { live: true }),
          loadEvents(cache, start, end, step),
        ]).catch((e) => [[], [], e.message]); // the history failing costs only the plots and the events
    const [gpus, alerts, silences, [util, events, historyError]] = await Promise.all([
      api("/api/v1/gpus", { params: { processes: false } }), // a count a GPU: not every process on the node
      api("/api/v1/alerts"),
      api("/api/v1/silences"),
      history,
    ]);
    return { gpus, alerts: alerts.data.alerts, silences: silences.data, util, events, historyError, start, end };
  },

  draw(root, data, state, ctx, navigate) {
    const { gpus, alerts, silences, util, events, historyError, start, end } = data;
    const rangeOptions = Object.keys(RANGES)
      .map((r) => `<option ${r === (state.range || "1h") ? "selected" : ""}>${r}</option>`)
      .join("");
    const active = alerts.filter((a) => a.state === "firing" || a.state === "pending");
    active.sort((a, b) => (a.state === b.state ? a.labels.alertname.localeCompare(b.labels.alertname) : a.state === "firing" ? -1 : 1));
    root.innerHTML = `
      <h2>GPUs <span class="muted">${esc(gpus.node.hostname)} · driver ${esc(gpus.node.driver_version)}</span></h2>
      <table id="gpus"><thead><tr><th>GPU</th><th>Model</th><th>Health</th><th>Utilization, last hour</th>
        <th class="num">Util</th><th class="num">Memory</th><th class="num">Temp</th><th class="num">Power</th><th>Processes</th></tr></thead>
        <tbody></tbody></table>
      <h2>Alerts <span class="muted">${active.filter((a) => a.state === "firing").length} firing, ${active.filter((a) => a.state === "pending").length} pending</span></h2>
      <table id="alerts"><thead><tr><th>State</th><th>Alert</th><th>Severity</th><th>GPU</th><th>Summary</th><th>Since</th><th>Runbook</th><th></th></tr></thead><tbody></tbody></table>
      <h2>Events <select id="event-range">${rangeOptions}</select>
        <span class="muted">${formatTime(start)} – ${formatTime(end)}</span></h2>
      <div class="timeline" id="timeline"></div>
      <table id="events"><thead><tr><th>When</th><th>GPU</th><th>What</th></tr></thead><tbody></tbody></table>
      <h2>Silences</h2>
      <table id="silences"><thead><tr><th>Matchers</th><th>State</th><th>Ends</th><th>By</th><th>Comment</th><th></th></tr></thead><tbody></tbody></table>`;

    const gpuBody = root.querySelector("#gpus tbody");
    for (const d of gpus.devices) {
      const tr = document.createElement("tr");
      tr.className = "gpu-row";
      tr.dataset.gpu = String(d.index);
      const verdict = d.state === "ok" ? d.health.verdict : d.state;
      const used = metric(d, "gpu_memory_used_bytes");
      const total = metric(d, "gpu_memory_total_bytes");
      tr.innerHTML = `<td>${d.index}</td><td>${esc(d.name)}</td>
        <td><span class="badge health ${esc(verdict)}">${esc(verdict)}</span>
          <span class="muted reasons">${esc(d.health.reasons.join("; "))}</span></td>
        <td><div class="spark"></div></td>
        <td class="num nowrap">${formatValue("ratio", metric(d, "gpu_utilization_ratio"))}</td>
        <td class="num nowrap">${formatValue("bytes", used)} / ${formatValue("bytes", total)}</td>
        <td class="num nowrap">${formatValue("celsius", metric(d, "gpu_temperature_celsius"))}</td>
        <td class="num nowrap">${formatValue("watts", metric(d, "gpu_power_watts"))}</td>
        <td>${d.process_count}</td>`;
      tr.addEventListener("click", () => navigate({ view: "debug", gpu: String(d.index), pid: "", range: "1h", from: null, to: null }));
      gpuBody.append(tr);
      const spark = tr.querySelector(".spark");
      if (ctx.historyOff) spark.textContent = "history off";
      else if (historyError) spark.textContent = "history unavailable";
      else sparkline(spark, util.filter((s) => s.metric.gpu === String(d.index)));
    }

    const alertBody = root.querySelector("#alerts tbody");
    if (active.length === 0) alertBody.innerHTML = '<tr><td colspan="8" class="empty">No alert is firing or pending.</td></tr>';
    for (const a of active) {
      const tr = document.createElement("tr");
      tr.className = "alert";
      tr.dataset.alertname = a.labels.alertname;
      tr.dataset.gpu = a.labels.gpu ?? "";
      tr.innerHTML = `<td><span class="badge ${esc(a.state)}">${esc(a.state)}</span>${a.muted ? ' <span class="muted">silenced</span>' : ""}</td>
        <td>${esc(a.labels.alertname)}</td><td><span class="badge ${esc(a.labels.severity)}">${esc(a.labels.severity)}</span></td>
        <td>${esc(a.labels.gpu ?? "")}</td><td>${esc(a.annotations.summary ?? "")}</td>
        <td title="${esc(formatTime(a.activeAt))}">${esc(formatAgo((Date.now() - Date.parse(a.activeAt)) / 1000))}</td>
        <td>${runbookLink(a)}</td><td>${a.muted ? "" : '<button class="silence">silence 1 h</button>'}${a.silenceError ? ` <span class="error">${esc(a.silenceError)}</span>` : ""}</td>`;
      const button = tr.querySelector("button.silence");
      if (button) button.addEventListener("click", () => silenceAlert(a, 1, () => navigate({}, { push: false })));
      alertBody.append(tr);
    }

    const timeline = root.querySelector("#timeline");
    const eventBody = root.querySelector("#events tbody");
    if (ctx.historyOff) {
      eventBody.innerHTML = '<tr><td colspan="3" class="empty">History is off: no events to show.</td></tr>';
    } else if (historyError) {
      eventBody.innerHTML = `<tr><td colspan="3" class="error">The history could not be read: ${esc(historyError)}</td></tr>`;
    } else if (events.length === 0) {
      eventBody.innerHTML = '<tr><td colspan="3" class="empty">No events in this range.</td></tr>';
    }
    for (const ev of events) {
      const mark = document.createElement("div");
      mark.className = `mark ${ev.severity}`;
      mark.style.left = `${(100 * (ev.t - start)) / (end - start)}%`;
      mark.title = `${formatTime(ev.t)} ${ev.gpu !== "" ? `GPU ${ev.gpu}: ` : ""}${ev.what}`;
      timeline.append(mark);
    }
    for (const ev of events.slice(0, 200)) {
      const tr = document.createElement("tr");
      tr.className = "event";
      tr.innerHTML = `<td>${esc(formatTime(ev.t))}</td><td>${esc(ev.gpu)}</td><td><span class="badge ${ev.severity}">${esc(ev.what)}</span></td>`;
      eventBody.append(tr);
    }
    root.querySelector("#event-range").addEventListener("change", (e) => navigate({ range: e.target.value, from: null, to: null }));

    const silenceBody = root.querySelector("#silences tbody");
    const shown = silences.filter((s) => s.status.state !== "expired");
    if (shown.length === 0) silenceBody.innerHTML = '<tr><td colspan="6" class="empty">No silence is active.</td></tr>';
    for (const s of shown) {
      const tr = document.createElement("tr");
      tr.className = "silence";
      const matchers = s.matchers.map((m) => `${m.name}${m.isEqual ? "" : "!"}${m.isRegex ? "=~" : "="}"${m.value}"`).join(", ");
      tr.innerHTML = `<td><code>${esc(matchers)}</code></td><td>${esc(s.status.state)}</td><td>${esc(formatTime(s.endsAt))}</td>
        <td>${esc(s.createdBy)}</td><td>${esc(s.comment)}</td><td>${s.source === "api" ? '<button class="expire">expire</button>' : '<span class="muted">from config</span>'}</td>`;
      const button = tr.querySelector("button.expire");
      if (button) button.addEventListener("click", () => expireSilence(s.id, () => navigate({}, { push: false })));
      silenceBody.append(tr);
    }
  },
};
