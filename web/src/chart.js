// Time-series plots (uPlot) from Prometheus range results: one chart per panel, the browser's time zone,
// human units on the axis, drag to zoom. Each chart says on its element how many points it drew
// (data-points), so a test can tell a plot with data from an empty frame.
import uPlot from "uplot";
import { formatValue } from "./format.js";

const COLORS = ["#58a6ff", "#3fb950", "#d29922", "#f85149", "#bc8cff", "#39c5cf", "#ff9bce", "#a5d6ff"];
export const seriesColor = (i) => COLORS[i % COLORS.length];

// Aligns range results onto one time axis: the timestamps all series share (the query's steps).
export function alignMatrix(results) {
  const times = new Set();
  for (const r of results) for (const [t] of r.values) times.add(t);
  const xs = [...times].sort((a, b) => a - b);
  const index = new Map(xs.map((t, i) => [t, i]));
  const ys = results.map((r) => {
    const y = new Array(xs.length).fill(null);
    for (const [t, v] of r.values) y[index.get(t)] = Number(v);
    return y;
  });
  return [xs, ...ys];
}

function countPoints(data) {
  let n = 0;
  for (let s = 1; s < data.length; ++s) for (const v of data[s]) if (v !== null && Number.isFinite(v)) ++n;
  return n;
}

const axis = (unit) => ({
  stroke: "#8b96a3",
  grid: { stroke: "#2b313a", width: 1 },
  ticks: { stroke: "#2b313a", width: 1 },
  values: unit ? (u, splits) => splits.map((v) => formatValue(unit, v)) : undefined,
  size: 70,
});

// Draws `results` (a Prometheus matrix) into `el`. `label(metric)` names a series; `unit` formats values;
// `onZoom(from, to)` is called after a drag-select on the time axis.
export function timeChart(el, results, { unit, label, onZoom, height = 200, yMin } = {}) {
  el.replaceChildren();
  const data = alignMatrix(results);
  const points = countPoints(data);
  el.dataset.points = String(points);
  el.dataset.series = String(results.length);
  if (points === 0) {
    const p = document.createElement("p");
    p.className = "empty";
    p.textContent = "no samples in this range";
    el.append(p);
    return null;
  }
  const width = Math.max(300, el.clientWidth || el.parentElement.clientWidth - 16);
  const opts = {
    width,
    height,
    cursor: { drag: { x: true, y: false } },
    scales: { x: { time: true }, y: yMin === undefined ? {} : { range: (u, min, max) => [yMin, Math.max(max, yMin + 1e-9)] } },
    axes: [axis(null), axis(unit)],
    legend: { show: results.length <= 16, live: false },
    series: [
      { value: (u, v) => (v === null ? "–" : new Date(v * 1000).toLocaleString()) },
      ...results.map((r, i) => ({
        label: label ? label(r.metric, r) : JSON.stringify(r.metric),
        stroke: seriesColor(i),
        width: 1.5,
        points: { show: false },
        spanGaps: false,
        value: (u, v) => formatValue(unit, v),
      })),
    ],
    hooks: {
      setSelect: [
        (u) => {
          if (!onZoom || u.select.width < 3) return;
          const from = u.posToVal(u.select.left, "x");
          const to = u.posToVal(u.select.left + u.select.width, "x");
          onZoom(Math.floor(from), Math.ceil(to));
        },
      ],
    },
  };
  return new uPlot(opts, data, el);
}

// A sparkline: one series, no axes or legend, fixed size.
export function sparkline(el, series) {
  el.replaceChildren();
  const data = alignMatrix(series);
  el.dataset.points = String(countPoints(data));
  if (countPoints(data) === 0) {
    el.textContent = "no history";
    return null;
  }
  return new uPlot(
    {
      width: 200,
      height: 32,
      cursor: { show: false },
      legend: { show: false },
      scales: { x: { time: true }, y: { range: [0, 1] } },
      axes: [{ show: false }, { show: false }],
      series: [{}, ...series.map(() => ({ stroke: "#58a6ff", width: 1.5, fill: "rgba(88,166,255,0.15)", points: { show: false } }))],
    },
    data,
    el,
  );
}
