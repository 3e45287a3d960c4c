// What a shared link carries: the view, the GPU or process, the range (a duration ending now, or a fixed
// from/to after a zoom) and a PromQL expression. The URL is the state: every change is written back to it.
import { RANGES, parseDuration } from "./format.js";

export function readState() {
  const p = new URLSearchParams(location.search);
  return {
    view: p.get("view") ?? "oncall",
    gpu: p.get("gpu") ?? "",
    pid: p.get("pid") ?? "",
    range: p.get("range") ?? "",
    from: p.has("from") ? Number(p.get("from")) : null,
    to: p.has("to") ? Number(p.get("to")) : null,
    expr: p.get("expr") ?? "",
  };
}

export function writeState(state, { push = false } = {}) {
  const p = new URLSearchParams();
  for (const key of ["view", "gpu", "pid", "range", "from", "to", "expr"]) {
    const v = state[key];
    if (v !== null && v !== undefined && v !== "") p.set(key, String(v));
  }
  const url = `${location.pathname}?${p}`;
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

// The [start, end] in seconds the state asks for; `fallback` when it names no range.
export function timeWindow(state, fallback, now = Date.now() / 1000) {
  if (state.from !== null && state.to !== null && state.to > state.from) return [state.from, state.to];
  const seconds = RANGES[state.range] ?? parseDuration(state.range) ?? RANGES[fallback];
  return [now - seconds, now];
}

// A step that gives about `points` points over the window, never finer than the sampling interval.
export function stepFor(start, end, points = 300, interval = 1) {
  return Math.max(interval, Math.ceil((end - start) / points));
}
