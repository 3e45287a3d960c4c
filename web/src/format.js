// Units a person reads: GiB, °C, W, %, MHz, and times in the browser's own zone.
const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

function fixed(v, digits) {
  return Number.isFinite(v) ? v.toFixed(digits) : "–";
}

export const units = {
  ratio: (v) => `${fixed(v * 100, v * 100 >= 10 || v === 0 ? 0 : 1)} %`,
  bytes: (v) => (Math.abs(v) >= GIB ? `${fixed(v / GIB, 1)} GiB` : `${fixed(v / MIB, 0)} MiB`),
  celsius: (v) => `${fixed(v, 0)} °C`,
  watts: (v) => `${fixed(v, 0)} W`,
  hertz: (v) => (Math.abs(v) >= 1e9 ? `${fixed(v / 1e9, 2)} GHz` : `${fixed(v / 1e6, 0)} MHz`),
  bytes_per_second: (v) =>
    Math.abs(v) >= GIB ? `${fixed(v / GIB, 2)} GiB/s` : `${fixed(v / MIB, 1)} MiB/s`,
  per_second: (v) => `${fixed(v, v >= 10 ? 0 : 2)} /s`,
  hours: (v) => `${fixed(v, v >= 100 ? 0 : 1)} h`,
  count: (v) => fixed(v, Number.isInteger(v) ? 0 : 2),
};

export function formatValue(unit, v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  return (units[unit] ?? units.count)(v);
}

const timeFormat = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

// An instant as the browser's zone shows it; `t` in seconds or a Date or an RFC 3339 string.
export function formatTime(t) {
  const d = t instanceof Date ? t : typeof t === "number" ? new Date(t * 1000) : new Date(t);
  return Number.isNaN(d.getTime()) ? "–" : timeFormat.format(d);
}

export function formatAgo(seconds) {
  if (seconds < 60) return `${Math.round(seconds)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400 * 2) return `${(seconds / 3600).toFixed(1)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}

// Durations the range picker offers, in seconds, by their Prometheus spelling.
export const RANGES = { "15m": 900, "1h": 3600, "6h": 21600, "24h": 86400, "7d": 604800, "30d": 2592000 };

export function parseDuration(text) {
  const m = /^(\d+)(s|m|h|d|w)$/.exec(text ?? "");
  if (!m) return null;
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400, w: 604800 }[m[2]];
}

// Escapes text for innerHTML.
export function esc(text) {
  return String(text ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
}
