#!/usr/bin/env node
// Where a dashboard refresh's time goes: the requests one refresh of each view PATH makes, captured in
// Chromium (the refresh after a first load, its range cache warm, as bench/ui_bench.mjs measures it), then
// sent again one at a time to the same agent, REPEATS times each: the median and best time and the bytes of
// each. On the data dir bench/ui_bench.sh keeps (UI_BENCH_KEEP=DIR: DIR/data and the scenario beside it):
//   GPUWATCH_SOURCE_DIR=. GPUWATCH_BINARY_DIR=build node bench/ui_requests.mjs DIR/data SCENARIO [REPEATS] PATH...
// e.g. PATH "/?range=24h" (the on-call view over 24 h) or "/?view=debug&gpu=0&range=24h".
import { startAgent, startBrowser } from "../tests/web/agent_fixture.mjs";

const [dataDir, scenario, repeatsArg, ...views] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 5);
if (!dataDir || !scenario || views.length === 0) {
  console.error("usage: node bench/ui_requests.mjs DATA_DIR SCENARIO [REPEATS] PATH...");
  process.exit(2);
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const agent = await startAgent({ historySeconds: 60, dataDir, scenario });
const browser = await startBrowser();
try {
  for (const view of views) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await page.goto(agent.url + view);
    await page.waitForFunction(() => Number(document.body.dataset.refreshes ?? 0) >= 1, null, { timeout: 120_000 });
    const asked = [];
    page.on("request", (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith("/api/")) asked.push(u.pathname + u.search);
    });
    await page.evaluate(() => window.dispatchEvent(new PopStateEvent("popstate")));
    await page.waitForFunction(() => Number(document.body.dataset.refreshes ?? 0) >= 2, null, { timeout: 120_000 });
    const refreshMs = Number(await page.getAttribute("body", "data-query-ms"));
    await context.close();
    console.log(`\n${view}: ${asked.length} requests, the refresh's queries took ${refreshMs.toFixed(0)} ms in the page`);
    console.log("| request | median | best | bytes |\n|---|---|---|---|");
    for (const path of asked) {
      const times = [];
      let bytes = 0;
      for (let i = 0; i < repeats; ++i) {
        const t0 = performance.now();
        bytes = (await (await fetch(agent.url + path)).arrayBuffer()).byteLength;
        times.push(performance.now() - t0);
      }
      const shown = decodeURIComponent(path).replaceAll("|", "\\|");
      console.log(`| \`${shown}\` | ${median(times).toFixed(1)} ms | ${Math.min(...times).toFixed(1)} ms | ${bytes} |`);
    }
  }
} finally {
  await browser.close();
  await agent.stop();
}
