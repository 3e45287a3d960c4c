// The dashboards' shell: reads the state from the URL, renders the view it names, refreshes it while its
// range ends now, and reports how long each refresh's queries took (in the header and on <body> as
// data-query-ms, with data-refreshes counting them, and data-ready-ms the time from navigation to the first
// view drawn, for the tests and the benchmark).
import { api } from "./api.js";
import { readState, writeState } from "./url_state.js";
import { parseDuration } from "./format.js";
import { oncallView } from "./oncall.js";
import { debugView } from "./debug.js";
import { executiveView } from "./executive.js";
import { runbookView } from "./runbook.js";

const VIEWS = { oncall: oncallView, debug: debugView, executive: executiveView, runbook: runbookView };

const root = document.getElementById("app");
const banner = document.getElementById("banner");
let timer = null;
let generation = 0; // a render started for an older state draws nothing

async function agentContext() {
  // The settings decide what can be shown: history off means no ranges; the interval bounds the step.
  const flags = (await api("/api/v1/status/flags")).data;
  return {
    flags,
    historyOff: flags.store === "off",
    interval: parseDuration(flags.interval) ?? 1,
  };
}

function showBanner(ctx) {
  if (ctx.historyOff) {
    banner.hidden = false;
    banner.textContent =
      "History is off on this agent (store: off): graphs show only the latest readings. " +
      "Set store: on (the default) and a data_dir to keep history.";
  } else {
    banner.hidden = true;
  }
}

function markNav(view) {
  for (const a of document.querySelectorAll("header nav a")) {
    a.classList.toggle("active", a.dataset.view === view);
  }
}

async function refresh(ctx, view, state, mine) {
  const started = performance.now();
  let data;
  try {
    data = await view.load(state, ctx);
  } catch (e) {
    if (mine !== generation) return;
    root.replaceChildren();
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = `Could not load this view: ${e.message}`;
    root.append(p);
    return;
  }
  const ms = performance.now() - started;
  if (mine !== generation) return;
  view.draw(root, data, state, ctx, navigate);
  showHost(data);
  document.body.dataset.queryMs = ms.toFixed(1);
  document.body.dataset.readyMs ??= performance.now().toFixed(0);
  document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes ?? 0) + 1);
  document.getElementById("refresh").textContent = `queries ${Math.round(ms)} ms · ${new Date().toLocaleTimeString()}`;
}

let ctxPromise = null;

// The node's name in the header, from the snapshot the view read (/api/v1/gpus is the dearest request of a
// refresh on a node of many processes: it is not asked twice); a view that reads none asks once.
let hostShown = false;
function showHost(data) {
  if (hostShown) return;
  const put = (s) => {
    document.getElementById("host").textContent = s.node.hostname;
    hostShown = true;
  };
  if (data?.gpus) put(data.gpus);
  else api("/api/v1/gpus", { params: { processes: false } }).then(put).catch(() => {});
}

async function render() {
  const mine = ++generation;
  clearTimeout(timer);
  const state = readState();
  const view = VIEWS[state.view] ?? oncallView;
  markNav(state.view in VIEWS ? state.view : "oncall");
  document.title = `gpuwatch · ${view.title}`;
  ctxPromise ??= agentContext();
  let ctx;
  try {
    ctx = await ctxPromise;
  } catch (e) {
    ctxPromise = null;
    root.innerHTML = "";
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = `The agent did not answer: ${e.message}`;
    root.append(p);
    timer = setTimeout(render, 5000);
    return;
  }
  showBanner(ctx);
  const loop = async () => {
    await refresh(ctx, view, state, mine);
    // A zoomed (fixed) range does not move: nothing to refresh.
    if (mine === generation && view.refreshSeconds && state.from === null) {
      timer = setTimeout(loop, view.refreshSeconds * 1000);
    }
  };
  await loop();
}

// Changes the state (a patch of it), writes it into the URL and renders.
function navigate(patch, { push = true } = {}) {
  writeState({ ...readState(), ...patch }, { push });
  render();
}

document.addEventListener("click", (e) => {
  const a = e.target.closest("a[href^='/?']");
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  history.pushState(null, "", a.getAttribute("href"));
  render();
});
window.addEventListener("popstate", render);
render();
