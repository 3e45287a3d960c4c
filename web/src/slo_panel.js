// The executive view's SLO panel: one row per SLO the agent evaluates (/api/v1/slos, docs/slo.md), with its
// objective, the SLI now and over the period, the error budget left as a bar, the burn rates of the windows
// the workbook's alerts read, the alert state and the GPU cause a page names. What to configure when none is.
import { esc, formatTime, formatValue } from "./format.js";

// The burn-rate windows shown: the pairs the page and ticket alerts read (docs/slo.md).
const BURN_WINDOWS = ["5m", "1h", "6h", "1d", "3d"];

// A ratio as a percentage with the digits an objective like 99.9 % needs.
const percent = (v) => (Number.isFinite(v) ? `${(v * 100).toFixed(v >= 0.99 && v < 1 ? 2 : 1)} %` : "–");

// A burn rate: 1 spends the budget exactly over the period; the alerts page at 14.4 and 6, ticket at 3 and 1.
function burn(v) {
  if (!Number.isFinite(v)) return '<td class="num muted">–</td>';
  const level = v >= 6 ? "page" : v >= 1 ? "ticket" : "";
  return `<td class="num burn ${level}">${v >= 100 ? v.toFixed(0) : v.toFixed(2)}×</td>`;
}

function budgetBar(remaining) {
  const left = Math.max(0, Math.min(1, remaining));
  const colour = remaining <= 0 ? "var(--crit)" : remaining < 0.25 ? "var(--warn)" : "var(--ok)";
  return `<div class="budget"><div style="width:${(left * 100).toFixed(1)}%;background:${colour}"></div></div>`;
}

function cause(s) {
  if (s.alertState === "ok") return "";
  const c = s.gpuCause?.[0];
  if (!c) return '<span class="muted">no GPU cause found</span>';
  return `GPU ${esc(c.gpu)} ${esc(c.alertname)} <span class="muted">since ${esc(formatTime(c.since))}</span>`;
}

// The panel's HTML for `slos`: null (the agent serves no SLO API), an {error}, or the API's data array.
export function sloPanel(slos) {
  if (slos === null || (Array.isArray(slos) && slos.length === 0)) {
    return '<p class="empty">No SLO is configured on this agent. Point it at Sloth (prometheus/v1) or OpenSLO files in gpuwatch.yaml (slo_files); this panel then shows each SLO\'s budget remaining and burn rate.</p>';
  }
  if (slos.error) return `<p class="error">${esc(slos.error)}</p>`;
  // The SLOs paging first, then ticket, then by how much budget is left.
  const rank = { page: 0, ticket: 1 };
  const rows = [...slos].sort(
    (a, b) => (rank[a.alertState] ?? 2) - (rank[b.alertState] ?? 2) || a.budgetRemaining - b.budgetRemaining,
  );
  const paging = rows.filter((s) => s.alertState === "page").length;
  return `<p class="muted" id="slo-summary">${rows.length} SLOs, ${paging} paging, ${rows.filter((s) => s.alertState === "ticket").length} ticket</p>
    <table id="slo-table"><thead><tr><th>Service</th><th>SLO</th><th class="num">Objective</th><th class="num">SLI 5m</th>
      <th class="num">SLI period</th><th>Budget left</th>${BURN_WINDOWS.map((w) => `<th class="num">Burn ${w}</th>`).join("")}
      <th>State</th><th>GPU cause</th></tr></thead><tbody>${rows
        .map(
          (s) => `<tr class="slo" data-slo="${esc(s.slo)}"><td>${esc(s.service)}</td><td>${esc(s.slo)}</td>
        <td class="num">${percent(s.objective)}</td><td class="num sli">${percent(s.sli)}</td><td class="num">${percent(s.sliPeriod)}</td>
        <td class="budget-left" title="${esc(formatValue("ratio", s.budgetRemaining))} of the error budget left">${budgetBar(s.budgetRemaining)}
          <span class="num budget-value">${formatValue("ratio", s.budgetRemaining)}</span></td>
        ${BURN_WINDOWS.map((w) => burn(s.burnRate?.[w])).join("")}
        <td><span class="badge ${esc(s.alertState === "ok" ? "healthy" : s.alertState)} state">${esc(s.alertState)}</span></td>
        <td class="cause">${cause(s)}</td></tr>`,
        )
        .join("")}</tbody></table>`;
}
