#!/usr/bin/env node
// The dashboards' cost in Chromium: page weight (what / and the bundle transfer gzipped), first paint and
// first contentful paint, and each view's query time per refresh (the time from the first query sent to the
// last answer, web/src/main.js data-query-ms), at each view's default range and over 24 h and 30 days, on an
// agent whose data dir holds the history bench/ui_bench.sh imported; with UI_BENCH_PEER (a Prometheus over the
// same last two days), each 24 h view's query requests replayed against both side by side. Prints Markdown
// tables.
//   node bench/ui_bench.mjs DATA_DIR SCENARIO [REPEATS]
import { startAgent, startBrowser } from "../tests/web/agent_fixture.mjs";

const [dataDir, scenario, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 5);
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
try {
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
      for (let i = 0; i < repeats; ++i) {
        const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
        const page = await context.newPage();
        await page.goto(agent.url + url(range));
        await page.waitForFunction(() => Number(document.body.dataset.refreshes ?? 0) >= 1, null, { timeout: 120_000 });
        const t = await page.evaluate(() => {
          const p = Object.fromEntries(performance.getEntriesByType("paint").map((e) => [e.name, e.startTime]));
          return { paint: p["first-paint"], fcp: p["first-contentful-paint"], queries: Number(document.body.dataset.queryMs) };
        });
        paint.push(t.paint);
        fcp.push(t.fcp);
        queries.push(t.queries);
        await context.close();
      }
      const row = { name, range, paint: median(paint), fcp: median(fcp), queries: median(queries), worst: Math.max(...queries) };
      if (peer && range === "24h") Object.assign(row, await sideBySide(url(range)));
      rows.push(row);
      console.log(`${name} ${range}: first paint ${row.paint.toFixed(0)} ms, FCP ${row.fcp.toFixed(0)} ms, queries per refresh ${row.queries.toFixed(0)} ms (median of ${repeats}, worst ${row.worst.toFixed(0)} ms)`);
    }
  }
  if (peer) {
    console.log("\n| view (24 h) | query API requests per refresh (answered with data: gpuwatch/Prometheus) | gpuwatch | Prometheus, same data | ratio |\n|---|---|---|---|---|");
    for (const r of rows.filter((x) => x.replayed !== undefined)) {
      console.log(`| ${r.name} | ${r.replayed} (${r.note}) | ${r.ours.toFixed(0)} ms | ${r.theirs.toFixed(0)} ms | ${r.ours <= r.theirs ? `${(r.theirs / r.ours).toFixed(2)}x faster` : `${(r.ours / r.theirs).toFixed(2)}x slower`} |`);
    }
  }
  console.log("\n| view | range | first paint | first contentful paint | queries per refresh (median, worst) |\n|---|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.range} | ${r.paint.toFixed(0)} ms | ${r.fcp.toFixed(0)} ms | ${r.queries.toFixed(0)} ms, ${r.worst.toFixed(0)} ms |`);
  }
} finally {
  await browser.close();
  await agent.stop();
}
