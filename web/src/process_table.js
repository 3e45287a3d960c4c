// The processes of a GPU as a table that stays usable with hundreds of them (a node packed with 1,000
// inference workers has 125 a GPU): sorted by memory (largest first) or by a column clicked, filtered by what
// is typed (pid, name, user, command or workload), PAGE_ROWS rows a page. Only the rows of the page shown are
// in the DOM. The sort, filter and page are kept across refreshes (the table is redrawn each one).
import { esc, formatValue } from "./format.js";

export const PAGE_ROWS = 25;

const plural = (n) => `${n} ${n === 1 ? "process" : "processes"}`;

const COLUMNS = [
  { key: "pid", title: "PID", num: true, value: (p) => p.pid },
  { key: "name", title: "Name", value: (p) => p.name ?? "" },
  { key: "user", title: "User", value: (p) => p.user ?? "" },
  { key: "command", title: "Command", value: (p) => p.command ?? "" },
  { key: "memory", title: "Memory", num: true, value: (p) => p.used_memory_bytes ?? 0 },
  { key: "sm", title: "SM", num: true, value: (p) => p.sm_utilization ?? 0 },
  { key: "workload", title: "Container, pod or job", value: (p, workload) => workload(p) },
];

// What the person chose, for one table; kept while the page lives.
export function tableState() {
  return { sort: "memory", descending: true, filter: "", page: 0 };
}

// Draws `processes` into `el` (a container) by `state`; `workload(p)` names a process's workload, `onPick(p)`
// opens one. Returns the processes shown, for the caller's own use.
export function processTable(el, processes, state, { workload, onPick }) {
  const column = COLUMNS.find((c) => c.key === state.sort) ?? COLUMNS[4];
  const needle = state.filter.trim().toLowerCase();
  const matching = needle
    ? processes.filter((p) => COLUMNS.some((c) => String(c.value(p, workload)).toLowerCase().includes(needle)))
    : processes;
  const sorted = [...matching].sort((a, b) => {
    const x = column.value(a, workload);
    const y = column.value(b, workload);
    const order = column.num ? x - y : String(x).localeCompare(String(y));
    return (state.descending ? -order : order) || a.pid - b.pid;
  });
  const pages = Math.max(1, Math.ceil(sorted.length / PAGE_ROWS));
  state.page = Math.min(state.page, pages - 1);
  const shown = sorted.slice(state.page * PAGE_ROWS, (state.page + 1) * PAGE_ROWS);
  const typing = document.activeElement?.id === "process-filter";
  el.innerHTML = `
    <div class="controls">
      <input id="process-filter" placeholder="filter: pid, name, user, command, workload" value="${esc(state.filter)}">
      <span class="muted" id="process-count">${matching.length === processes.length ? plural(processes.length) : `${matching.length} of ${plural(processes.length)}`}</span>
      ${pages > 1 ? `<button id="process-prev" ${state.page === 0 ? "disabled" : ""}>‹ previous</button>
        <span id="process-page">page ${state.page + 1} of ${pages}</span>
        <button id="process-next" ${state.page === pages - 1 ? "disabled" : ""}>next ›</button>` : ""}
    </div>
    <table id="processes"><thead><tr>${COLUMNS.map(
      (c) => `<th class="${c.num ? "num " : ""}sortable" data-sort="${c.key}">${c.title}${c.key === column.key ? (state.descending ? " ▾" : " ▴") : ""}</th>`,
    ).join("")}</tr></thead><tbody></tbody></table>`;
  const tbody = el.querySelector("tbody");
  if (processes.length === 0) tbody.innerHTML = '<tr><td colspan="7" class="empty">No process is using this GPU.</td></tr>';
  else if (shown.length === 0) tbody.innerHTML = '<tr><td colspan="7" class="empty">No process matches the filter.</td></tr>';
  for (const p of shown) {
    const tr = document.createElement("tr");
    tr.className = "gpu-row process";
    tr.innerHTML = `<td>${p.pid}</td><td>${esc(p.name)}</td><td>${esc(p.user ?? "")}</td><td><code>${esc(p.command ?? "")}</code></td>
      <td class="num">${formatValue("bytes", p.used_memory_bytes)}</td><td class="num">${formatValue("ratio", p.sm_utilization)}</td><td>${esc(workload(p))}</td>`;
    tr.addEventListener("click", () => onPick(p));
    tbody.append(tr);
  }
  const redraw = () => processTable(el, processes, state, { workload, onPick });
  const filter = el.querySelector("#process-filter");
  if (typing) {
    filter.focus();
    filter.setSelectionRange(filter.value.length, filter.value.length);
  }
  filter.addEventListener("input", () => {
    state.filter = filter.value;
    state.page = 0;
    redraw();
  });
  el.querySelector("#process-prev")?.addEventListener("click", () => {
    state.page -= 1;
    redraw();
  });
  el.querySelector("#process-next")?.addEventListener("click", () => {
    state.page += 1;
    redraw();
  });
  for (const th of el.querySelectorAll("th.sortable")) {
    th.addEventListener("click", () => {
      state.descending = th.dataset.sort === state.sort ? !state.descending : COLUMNS.find((c) => c.key === th.dataset.sort).num;
      state.sort = th.dataset.sort;
      state.page = 0;
      redraw();
    });
  }
  return shown;
}
