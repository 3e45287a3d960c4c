#!/usr/bin/env node
// The dashboards' cost in Chromium: page weight (what / and the bundle transfer gzipped), first paint and
// first contentful paint, and each view's query time per refresh (the time from the first query sent to the
// last answer, web/src/main.js data-query-ms), at each view's default range and over 24 h and 30 days, on an
// agent whose data dir holds the history bench/ui_bench.sh imported; with UI_BENCH_PEER (a Prometheus over the
// same last two days), each 24 h view's query requests replayed against both side by side. Prints Markdown
// tables. Each view is measured at its first load (a fresh browser context: every query asked whole) and at a
// refresh after it (the page's range cache warm: only the tail asked), and the time until the view is drawn
// (data-ready-ms). First, the node is checked to be what the figures claim: the GPUs and processes the
// agent reports, and history reaching back DAYS days for GPUs and processes.
//   node bench/ui_bench.mjs DATA_DIR SCENARIO [REPEATS] [DAYS] [PROCESSES]
import { startAgent, startBrowser } from "../tests/web/agent_fixture.mjs";

const [dataDir, scenario, repeatsArg, daysArg, processesArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 5);
const days = Number(daysArg ?? 30);
const processes = Number(processesArg ?? 1000);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Prometheus over the same last two days (bench/ui_bench.sh), or none.
const peer = process.env.UI_BENCH_PEER;

// The query API requests one refresh of the view makes, replayed together (as the page sends them) against
// the agent and against Prometheus: the median of 5 rounds each, alternating.
async function sideBySide(path) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (/^\/api\/v1\/(query|query_range|labels)$/.test(u.pathname)) requests.push(u.pathname + u.search);
  });
  await page.goto(agent.url + path);
  await page.waitForFunction(() => Number(document.body.dataset.refreshes ?? 0) >= 1, null, { timeout: 120_000 });
  await context.close();
  // Both must answer every request with data: a side that fails fast would look fast.
  const answered = { [agent.url]: 0, [peer]: 0 };
  const round = async (base) => {
    const t0 = performance.now();
    const bodies = await Promise.all(requests.map(async (r) => (await fetch(base + r)).json()));
    const ms = performance.now() - t0;
    answered[base] = bodies.filter((b) => b.status === "success" && (b.data.result ?? b.data).length > 0).length;
    return ms;
  };
  const ours = [];
  const theirs = [];
  for (let i = 0; i < 5; ++i) {
    ours.push(await round(agent.url));
    theirs.push(await round(peer));
  }
  const note = `${answered[agent.url]}/${answered[peer]} of ${requests.length} with data`;
  return { replayed: requests.length, ours: median(ours), theirs: median(theirs), note };
}

const agent = await startAgent({ historySeconds: 60, dataDir, scenario });
const browser = await startBrowser();
const rows = [];
const instant = async (expr, time) => {
  const r = await (await fetch(`${agent.url}/api/v1/query?${new URLSearchParams({ query: expr, time })}`)).json();
  return r.data.result.length ? Number(r.data.result[0].value[1]) : 0;
};
try {
  // The node: its GPUs and processes now, and the history an hour after the DAYS days began.
  const snap = await agent.gpus();
  const running = snap.devices.reduce((n, d) => n + d.processes.length, 0);
  const early = Date.now() / 1000 - days * 86400 + 3600;
  const gpusThen = await instant("count(gpu_up)", early);
  const processSeriesThen = await instant("count(gpu_process_memory_used_bytes)", early);
  const gpusBytes = (await (await fetch(`${agent.url}/api/v1/gpus`)).arrayBuffer()).byteLength;
  console.log(`node: ${snap.devices.length} GPUs and ${running} processes now (/api/v1/gpus ${gpusBytes} bytes); ` +
    `${days} days ago: ${gpusThen} GPUs, ${processSeriesThen} per-process memory series`);
  if (snap.devices.length !== 8 || running !== processes || gpusThen !== 8 || processSeriesThen === 0) {
    throw new Error(`the node is not 8 GPUs with ${processes} processes and ${days} days of history`);
  }
  let weight = 0;
  for (const path of ["/", "/ui/app.js", "/ui/app.css"]) {
    const res = await fetch(agent.url + path, { headers: { "Accept-Encoding": "gzip" } });
    weight += (await res.arrayBuffer()).byteLength === 0 ? 0 : Number(res.headers.get("content-length") ?? 0);
  }
  console.log(`page_weight_gzip_bytes ${weight}`);
  // "default": the range a view opens with (on-call and debug 1 h, executive 7 days) on the 30-day history.
  const param = (r) => (r === "default" ? "" : `range=${r}`);
  const views = [
    ["on-call", (r) => `/?${param(r)}`],
    ["debug", (r) => `/?view=debug&gpu=0&${param(r)}`],
    ["executive", (r) => `/?view=executive&${param(r)}`],
  ];
  for (const range of ["default", "24h", "30d"]) {
    for (const [name, url] of views) {
      const paint = [];
      const fcp = [];
      const queries = [];
      const refreshes = [];
      const ready = [];
      for (let i = 0; i < repeats; ++i) {
        const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
        const page = await context.newPage();
        await page.goto(agent.url + url(range));
        await page.waitForFunction(() => Number(document.body.dataset.refreshes ?? 0) >= 1, null, { timeout: 120_000 });
        const t = await page.evaluate(() => {
          const p = Object.fromEntries(performance.getEntriesByType("paint").map((e) => [e.name, e.startTime]));
          return { paint: p["first-paint"], fcp: p["first-contentful-paint"], queries: Number(document.body.dataset.queryMs), ready: Number(document.body.dataset.readyMs) };
        });
        // A refresh: the page renders its state again (as its timer does), its range cache warm.
        await page.evaluate(() => window.dispatchEvent(new PopStateEvent("popstate")));
        await page.waitForFunction(() => Number(document.body.dataset.refreshes ?? 0) >= 2, null, { timeout: 120_000 });
        refreshes.push(Number(await page.getAttribute("body", "data-query-ms")));
        paint.push(t.paint);
        fcp.push(t.fcp);
        queries.push(t.queries);
        ready.push(t.ready);
        await context.close();
      }
      const row = {
        name, range, paint: median(paint), fcp: median(fcp), queries: median(queries), worst: Math.max(...queries),
        refresh: median(refreshes), refreshWorst: Math.max(...refreshes), ready: median(ready),
      };
      if (peer && range === "24h") Object.assign(row, await sideBySide(url(range)));
      rows.push(row);
      console.log(`${name} ${range}: first paint ${row.paint.toFixed(0)} ms, FCP ${row.fcp.toFixed(0)} ms, drawn at ${row.ready.toFixed(0)} ms, queries at first load ${row.queries.toFixed(0)} ms (worst ${row.worst.toFixed(0)} ms), at a refresh ${row.refresh.toFixed(0)} ms (worst ${row.refreshWorst.toFixed(0)} ms), median of ${repeats}`);
    }
  }
  // The debug view's process table with 125 processes on the GPU: rows in the page, and paging, sorting and
  // filtering it (each redraws the table from the snapshot the view holds: no query).
  {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await page.goto(`${agent.url}/?view=debug&gpu=0`);
    await page.waitForSelector("#process-page");
    const timed = (action) =>
      page.evaluate(async (a) => {
        const t0 = performance.now();
        if (a === "next") document.querySelector("#process-next").click();
        if (a === "sort") document.querySelector('th[data-sort="pid"]').click();
        if (a === "filter") {
          const f = document.querySelector("#process-filter");
          f.value = "100008";
          f.dispatchEvent(new Event("input"));
        }
        return performance.now() - t0;
      }, action);
    const rowsShown = await page.locator("#processes tr.process").count();
    const count = await page.textContent("#process-count");
    const ms = { next: await timed("next"), sort: await timed("sort"), filter: await timed("filter") };
    console.log(`process table: ${count} on GPU 0, ${rowsShown} rows a page; next page ${ms.next.toFixed(1)} ms, sort ${ms.sort.toFixed(1)} ms, filter ${ms.filter.toFixed(1)} ms`);
    await context.close();
  }
  if (peer) {
    console.log("\n| view (24 h) | query API requests per refresh (answered with data: gpuwatch/Prometheus) | gpuwatch | Prometheus, same data | ratio |\n|---|---|---|---|---|");
    for (const r of rows.filter((x) => x.replayed !== undefined)) {
      console.log(`| ${r.name} | ${r.replayed} (${r.note}) | ${r.ours.toFixed(0)} ms | ${r.theirs.toFixed(0)} ms | ${r.ours <= r.theirs ? `${(r.theirs / r.ours).toFixed(2)}x faster` : `${(r.ours / r.theirs).toFixed(2)}x slower`} |`);
    }
  }
  console.log("\n| view | range | first paint | view drawn | queries, first load (median, worst) | queries, refresh (median, worst) |\n|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.range} | ${r.paint.toFixed(0)} ms | ${r.ready.toFixed(0)} ms | ${r.queries.toFixed(0)} ms, ${r.worst.toFixed(0)} ms | ${r.refresh.toFixed(0)} ms, ${r.refreshWorst.toFixed(0)} ms |`);
  }
} finally {
  await browser.close();
  await agent.stop();
}
