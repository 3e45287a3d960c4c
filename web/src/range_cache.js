// Range queries asked again at every refresh over a window that slides with the clock. Their steps are put on
// multiples of the step (as a subquery's are), so a step answered once has the same instant next time and its
// value does not change: the first refresh asks for the whole window, the next ones only for the tail from
// the last step answered (asked again when it was recent: it may have been read before all its samples were
// in). What slid out
// of the window is dropped. Over 30 days at a 20-minute step a refresh then reads minutes of history, not days.
// With `live`, the readings at `end` itself are added as a last point (one instant query beside the range
// one, kept for this answer only), so the newest state shows however coarse the step.
import { query, queryRange } from "./api.js";

const MAX_ENTRIES = 64; // expressions and steps kept; a view asks a handful
// A step this old has all its samples: the collector's tick and the store's append are seconds behind, and the
// simulator's lockstep catch-up ends before the agent answers.
const SETTLED_S = 120;

const seriesKey = (metric) => JSON.stringify(Object.entries(metric).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export class RangeCache {
  constructor() {
    this.entries = new Map(); // `${step} ${expr}` -> { from, to, series: Map(key -> {metric, values}) }
  }

  // The matrix of `expr` over [start, end] at `step` seconds, its steps on multiples of `step` (and at `end`
  // with `live`).
  async query(expr, start, end, step, { live = false } = {}) {
    const from = Math.ceil(start / step) * step;
    const to = Math.floor(end / step) * step;
    const key = `${step} ${expr}`;
    const entry = this.entries.get(key);
    const usable = entry && entry.from <= from && entry.to >= from && entry.to <= to;
    // The last step answered is asked again unless it was already SETTLED_S old when answered.
    const askFrom = !usable ? from : Math.max(from, entry.settled ? entry.to + step : entry.to);
    const [answer, now] = await Promise.all([
      to >= askFrom ? queryRange(expr, askFrom, to, step) : [],
      live && end > to ? query(expr, end) : [],
    ]);
    const series = usable ? entry.series : new Map();
    for (const s of series.values()) {
      // Keep the steps still in the window and before the ones asked again.
      s.values = s.values.filter(([t]) => t >= from && t < askFrom);
    }
    for (const r of answer) {
      const k = seriesKey(r.metric);
      const s = series.get(k);
      if (s) s.values.push(...r.values);
      else series.set(k, { metric: r.metric, values: [...r.values] });
    }
    for (const [k, s] of series) if (s.values.length === 0) series.delete(k);
    this.entries.delete(key); // re-inserted last: the Map's order is the order of use
    this.entries.set(key, { from, to, series, settled: Date.now() / 1000 - to >= SETTLED_S });
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value);
    const out = new Map([...series].map(([k, s]) => [k, { metric: s.metric, values: s.values }]));
    for (const r of now) {
      const k = seriesKey(r.metric);
      const s = out.get(k) ?? { metric: r.metric, values: [] };
      s.values = [...s.values, [end, r.value[1]]];
      out.set(k, s);
    }
    return [...out.values()];
  }
}
