// The node's events over a window, read back from the history: each rise of an XID, NVML-event or kernel-log
// counter, each GPU that stopped answering (lost, or stale behind a hung call), each alert that started
// firing (out-of-memory kills among them). Two queries (the counters and GPU states by their names, and the
// alerts), through the view's RangeCache: a refresh asks only for the steps since the last one, and for the
// newest readings (the live point), so a fault shows at the next refresh whatever the step.
const COUNTERS_AND_STATES = ["gpu_xid_errors_total", "gpu_events_total", "gpuwatch_kernel_log_events_total", "gpu_up", "gpu_stale"];

const KERNEL_KINDS = {
  driver_loaded: "NVIDIA driver loaded",
  driver_unloaded: "NVIDIA driver unloaded",
  fallen_off_bus: "a GPU fell off the bus (kernel log)",
};

// Points where a counter rose, and a series that first appears after the window's start with a value (a
// counter is created at its first event).
function rises(series, start, step, each) {
  for (const s of series) {
    let prev = null;
    for (const [t, raw] of s.values) {
      const v = Number(raw);
      if (prev === null) {
        if (t > start + 2 * step && v > 0) each(s.metric, t, v);
      } else if (v > prev) {
        each(s.metric, t, v - prev);
      }
      prev = v;
    }
  }
}

export async function loadEvents(cache, start, end, step) {
  const [series, alerts] = await Promise.all([
    cache.query(`{__name__=~"${COUNTERS_AND_STATES.join("|")}"}`, start, end, step, { live: true }),
    cache.query('ALERTS{alertstate="firing"}', start, end, step, { live: true }),
  ]);
  const named = (name) => series.filter((s) => s.metric.__name__ === name);
  const [xids, nvml, kernel, up, stale] = COUNTERS_AND_STATES.map(named);
  const events = [];
  const add = (t, gpu, what, severity = "warning") => events.push({ t, gpu, what, severity });
  rises(xids, start, step, (m, t, n) => add(t, m.gpu, `XID ${m.xid}${n > 1 ? ` ×${n}` : ""}`, "critical"));
  rises(nvml, start, step, (m, t) => add(t, m.gpu, `NVML event: ${m.event}`));
  rises(kernel, start, step, (m, t) => {
    if (KERNEL_KINDS[m.kind]) add(t, "", KERNEL_KINDS[m.kind], m.kind === "fallen_off_bus" ? "critical" : "warning");
  });
  const staleAt = new Set();
  for (const s of stale) for (const [t, v] of s.values) if (Number(v) === 1) staleAt.add(`${s.metric.gpu}@${t}`);
  for (const s of up) {
    let prev = null;
    for (const [t, raw] of s.values) {
      const v = Number(raw);
      if (prev === 1 && v === 0) {
        const hung = staleAt.has(`${s.metric.gpu}@${t}`);
        add(t, s.metric.gpu, hung ? "GPU stopped answering (stale: a hung driver call)" : "GPU lost", "critical");
      }
      prev = v;
    }
  }
  for (const s of alerts) {
    let prevT = null;
    for (const [t] of s.values) {
      // A gap longer than two steps is a new firing.
      if (prevT === null ? t > start + 2 * step : t - prevT > 2 * step) {
        const oom = /Oom|OutOfMemory/.test(s.metric.alertname);
        const what = oom ? `out of memory (${s.metric.alertname})` : `${s.metric.alertname} fired`;
        add(t, s.metric.gpu ?? "", what, s.metric.severity === "page" ? "critical" : "warning");
      }
      prevT = t;
    }
  }
  events.sort((a, b) => b.t - a.t);
  return events;
}
