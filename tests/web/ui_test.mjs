// The dashboards in a real browser (Debian's chromium, driven by playwright-core) against an agent on the
// simulated incidents node: each view loads, its plots draw real series (their stroke colour is on the
// canvas, not only the axes), a firing alert shows with its runbook, a fault the scenario injects while the
// page is open appears within one refresh, links carry the view, GPU and range, and the API token and the
// history being off are handled.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readFileSync } from "node:fs";
import { startAgent, startBrowser } from "./agent_fixture.mjs";
import { manyProcessesScenario } from "./many_processes_scenario.mjs";

const ONCALL_REFRESH_MS = 5000; // web/src/oncall.js refreshSeconds
// The series' strokes (web/src/chart.js); axes and grid are grey.
const SERIES_COLOURS = ["#58a6ff", "#3fb950", "#d29922", "#f85149", "#bc8cff", "#39c5cf", "#ff9bce", "#a5d6ff"].map((c) =>
  [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)),
);

// Pixels in a series' colour (within a small tolerance, for antialiasing) on the canvases under `selector`.
async function strokePixels(page, selector) {
  return page.evaluate(
    ([sel, colours]) => {
      let n = 0;
      for (const canvas of document.querySelectorAll(`${sel} canvas`)) {
        const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] < 200) continue;
          if (colours.some(([r, g, b]) => Math.abs(data[i] - r) < 24 && Math.abs(data[i + 1] - g) < 24 && Math.abs(data[i + 2] - b) < 24)) ++n;
        }
      }
      return n;
    },
    [selector, SERIES_COLOURS],
  );
}

const points = async (page, selector) => Number(await page.getAttribute(selector, "data-points"));

describe("dashboards on the incidents node", () => {
  let agent;
  let browser;
  let page;
  const errors = [];

  before(async () => {
    // 7 min 20 s of history; GPU 3 falls off the bus at minute 8, 40 s after the agent is ready.
    agent = await startAgent({ historySeconds: 440 });
    browser = await startBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("pageerror", (e) => errors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    await agent?.stop();
  });

  test("on-call: a row per GPU with a drawn sparkline, and a fault appears within one refresh", async () => {
    await page.goto(`${agent.url}/`);
    await page.waitForSelector("#gpus tbody tr.gpu-row >> nth=7");
    assert.equal(await page.locator("#gpus tbody tr.gpu-row").count(), 8);
    assert.match(await page.textContent('tr.gpu-row[data-gpu="0"]'), /H200/);
    for (let gpu = 0; gpu < 8; ++gpu) {
      assert.ok((await points(page, `tr.gpu-row[data-gpu="${gpu}"] .spark`)) >= 5, `GPU ${gpu}'s sparkline has points`);
    }
    assert.ok((await strokePixels(page, "#gpus")) > 500, "the sparklines' strokes are on the canvas");
    // GPU 0 is in hardware thermal slowdown already.
    assert.match(await page.textContent('tr.gpu-row[data-gpu="0"] .health'), /critical/);
    assert.match(await page.textContent('tr.gpu-row[data-gpu="3"] .health'), /healthy/, "GPU 3 has not fallen off yet");

    // The fault: once the agent reports GPU 3 lost, the page shows it by its next refresh.
    let lostAt = null;
    const deadline = Date.now() + 90_000;
    while (lostAt === null && Date.now() < deadline) {
      const snap = await agent.gpus();
      if (snap.devices.find((d) => d.index === 3).state === "lost") lostAt = Date.now();
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(lostAt, "the scenario's fall off the bus reached the agent");
    // One refresh: the pause between refreshes, the queries of the refresh that read the GPU just before it
    // was lost and of the one that shows it (taken as equal), and a second for drawing on a busy machine.
    await page.waitForFunction(
      () => document.querySelector('tr.gpu-row[data-gpu="3"] .health')?.textContent.includes("lost"),
      null,
      { timeout: 2 * ONCALL_REFRESH_MS + 5000, polling: 50 },
    );
    const shownAfter = Date.now() - lostAt;
    const queryMs = Number(await page.getAttribute("body", "data-query-ms"));
    assert.ok(shownAfter <= ONCALL_REFRESH_MS + 2 * queryMs + 1000, `shown ${shownAfter} ms after the agent saw it (queries ${queryMs} ms)`);
    // And on the events timeline, from the history.
    await page.waitForFunction(
      () => [...document.querySelectorAll("#events tr.event")].some((r) => /GPU lost/.test(r.textContent) && r.children[1].textContent === "3"),
      null,
      { timeout: 2 * ONCALL_REFRESH_MS + 2000 },
    );
    assert.ok((await page.locator(".timeline .mark").count()) > 5, "events are marked on the timeline");
    assert.ok(await page.locator("#events tr.event", { hasText: "XID 48" }).count(), "the double-bit ECC error's XID 48 is an event");
    assert.ok(await page.locator("#events tr.event", { hasText: "out of memory" }).count(), "GPU 1's OOM is an event");
  });

  test("on-call: a firing alert shows, and its runbook is one click away", async () => {
    await page.goto(`${agent.url}/`);
    const row = page.locator('tr.alert[data-alertname="GpuThermalSlowdown"]');
    await row.waitFor();
    assert.match(await row.textContent(), /firing/);
    assert.match(await row.textContent(), /GPU 0 is too hot/);
    await row.locator("a.runbook").click();
    await page.waitForSelector("article.runbook h1");
    assert.match(page.url(), /view=runbook&name=GpuThermalSlowdown/);
    assert.match(await page.textContent("article.runbook h1"), /GpuThermalSlowdown/);
    assert.ok((await page.locator("article.runbook li").count()) > 0, "the Markdown is rendered");
  });

  test("debug: every panel of a GPU draws its series, zoom and PromQL land in the URL", async () => {
    await page.goto(`${agent.url}/?view=debug&gpu=0&range=15m`);
    await page.waitForSelector('[data-panel="temperature"] canvas');
    const panels = ["utilization", "memory", "clocks", "throttle", "power", "temperature", "pcie", "pcie-errors", "process-memory", "process-sm"];
    for (const id of panels) {
      assert.ok((await points(page, `[data-panel="${id}"]`)) >= 100, `${id} has points`);
      assert.ok((await strokePixels(page, `[data-panel="${id}"]`)) > 100, `${id}'s series are drawn`);
    }
    assert.match(await page.textContent('[data-panel="throttle"]'), /hw_thermal_slowdown/);
    const proc = page.locator("#processes tr.process");
    assert.match(await proc.first().textContent(), /61000.*python3.*mchen.*Slurm job 48213/s);

    // Drag across the middle of the temperature plot: the range becomes fixed, in the URL.
    const box = await page.locator('[data-panel="temperature"] .u-over').boundingBox();
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForURL(/from=\d+&to=\d+/);
    await page.waitForSelector("#unzoom");
    const url = new URL(page.url());
    const span = Number(url.searchParams.get("to")) - Number(url.searchParams.get("from"));
    assert.ok(span > 120 && span < 600, `the zoom covers part of the 15 minutes (${span} s)`);
    assert.ok((await points(page, '[data-panel="temperature"]')) > 10);

    await page.fill("#expr", "max by (gpu) (gpu_temperature_celsius)");
    await page.press("#expr", "Enter");
    await page.waitForSelector('[data-panel="custom"] canvas');
    assert.match(page.url(), /expr=max/);
    assert.equal(await page.getAttribute('[data-panel="custom"]', "data-series"), "8");
    assert.ok((await strokePixels(page, '[data-panel="custom"]')) > 100);

    await page.fill("#expr", "sum(");
    await page.press("#expr", "Enter");
    await page.waitForSelector("#custom .error");
  });

  test("a shared link opens the same view, GPU, process and range", async () => {
    await page.goto(`${agent.url}/?view=debug&gpu=2&pid=61002&range=1h`);
    await page.waitForSelector('[data-panel="process-memory"] canvas');
    assert.equal(await page.inputValue("#gpu"), "2");
    assert.equal(await page.inputValue("#range"), "1h");
    assert.match(await page.textContent("main"), /Process 61002 python3/);
    assert.equal(await page.getAttribute('[data-panel="process-memory"]', "data-series"), "1");
  });

  test("executive: utilization, idle share and GPU-hours by workload; cost and SLOs say what to configure", async () => {
    await page.goto(`${agent.url}/?view=executive&range=24h`);
    await page.waitForSelector('[data-panel="cluster-utilization"] canvas');
    assert.match(await page.textContent("#tile-util"), /^\d+(\.\d)? %$/);
    assert.match(await page.textContent("#tile-up"), /^7 \/ 8$/, "GPU 3 is lost by now");
    assert.ok((await strokePixels(page, '[data-panel="cluster-utilization"]')) > 20);
    assert.ok((await strokePixels(page, '[data-panel="idle-share"]')) > 20);
    const workload = page.locator("#workloads tr.workload").first();
    // The incidents node's training processes run in Slurm job 48213 (their cgroup): their series carry
    // slurm_job, the most telling workload label they have, so the GPU-hours are the job's.
    assert.match(await page.textContent("#workloads th"), /^slurm_job$/);
    assert.match(await workload.textContent(), /^\s*48213\s*\d+(\.\d)? h/);
    // The agent's accounting serves /api/v1/cost: the panel shows the job's GPU-hours (no price configured).
    assert.match(await page.textContent("#cost"), /job 48213 \(mchen\)/);
    assert.match(await page.textContent("#slos"), /No SLO is configured/);
    assert.deepEqual(errors, [], "no script error on any page");
  });
});

// For one describe block: an agent and a browser, and a file `name` holding `text` in a temporary folder of
// its own (removed after) that `options(file)` may hand the agent.
function agentWithFile(name, text, options) {
  const env = {};
  before(async () => {
    env.dir = mkdtempSync(join(tmpdir(), "gpuwatch-web-file-"));
    const file = join(env.dir, name);
    writeFileSync(file, text);
    env.agent = await startAgent(options(file));
    env.browser = await startBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.agent?.stop();
    rmSync(env.dir, { recursive: true, force: true });
  });
  return env;
}

describe("an agent with history off and an API token", () => {
  const env = agentWithFile("token", "s3cret\n", (token) => ({
    historySeconds: 60,
    args: ["--store", "off", "--api-token-file", token],
  }));

  test("says the history is off, asks for the token and sends it", async () => {
    const page = await env.browser.newPage();
    await page.goto(`${env.agent.url}/`);
    await page.waitForSelector("#gpus tbody tr.gpu-row");
    assert.match(await page.textContent("#banner"), /History is off/);
    assert.match(await page.textContent("#events"), /History is off/);

    const watchdog = page.locator('tr.alert[data-alertname="Watchdog"]');
    await watchdog.locator("button.silence").click();
    await page.waitForSelector("#token-dialog[open]");
    await page.fill("#token-input", "wrong");
    await page.click('#token-dialog button[value="ok"]');
    await page.waitForFunction(() => document.querySelector("#token-error").textContent.includes("refused"));
    await page.fill("#token-input", "s3cret");
    await page.click('#token-dialog button[value="ok"]');
    await page.waitForSelector("#silences tr.silence");
    assert.match(await page.textContent("#silences tr.silence"), /alertname="Watchdog"/);
    await page.waitForFunction(() => /silenced/.test(document.querySelector('tr.alert[data-alertname="Watchdog"]')?.textContent ?? ""));

    // The token is kept for the session: expiring asks nothing.
    await page.click("#silences button.expire");
    await page.waitForSelector("#silences td.empty");
    assert.equal(await page.locator("#token-dialog[open]").count(), 0);
  });
});

describe("an agent whose history cannot be opened", () => {
  // A data dir that is a file: the store cannot open, the agent runs on without it (and says why).
  const env = agentWithFile("not-a-dir", "", (file) => ({ historySeconds: 30, dataDir: file }));

  test("the GPUs and alerts still show; the plots and events say the history cannot be read", async () => {
    const page = await env.browser.newPage();
    await page.goto(`${env.agent.url}/`);
    await page.waitForSelector("#gpus tbody tr.gpu-row >> nth=7");
    assert.ok(await page.locator('tr.alert[data-alertname="Watchdog"]').count());
    assert.match(await page.textContent("#events"), /The history could not be read/);
    assert.match(await page.textContent('tr.gpu-row[data-gpu="0"] .spark'), /history unavailable/);
    await page.goto(`${env.agent.url}/?view=debug&gpu=0`);
    await page.waitForSelector("#processes tr.process");
    assert.match(await page.textContent('[data-panel="temperature"]'), /\S/);
    assert.equal(await page.locator('[data-panel="temperature"] .error').count(), 1);
  });
});

describe("an agent evaluating SLOs over the simulator's model servers", () => {
  // scenarios/inference-slo-8xh200.yaml's servers, served by `gpuwatch sim serve` and found by the agent's
  // discovery, with their SLOs; the scenario is 7.5 minutes in, so GPU5's TGI server is in its bad deploy
  // (30 % of requests fail from minute 7) and its availability SLO burns.
  const slosFile = () => join(process.env.GPUWATCH_SOURCE_DIR, "scenarios/inference-slo-8xh200.slos.yaml");
  let agent;
  let browser;
  before(async () => {
    agent = await startAgent({
      scenario: join(process.env.GPUWATCH_SOURCE_DIR, "scenarios/inference-slo-8xh200.yaml"),
      mode: "scaled",
      services: true,
      historySeconds: 450,
      args: ["--slo-files", slosFile()],
    });
    browser = await startBrowser();
  });
  after(async () => {
    await browser?.close();
    await agent?.stop();
  });
  const slos = async () => (await (await fetch(`${agent.url}/api/v1/slos`)).json()).data;

  test("executive: the SLO panel shows each SLO's budget, burn rates and state as the agent evaluates them", async () => {
    // The burn shows once the agent has scraped the servers twice (a rate needs two samples).
    let burning = null;
    const deadline = Date.now() + 90_000;
    while (!burning && Date.now() < deadline) {
      burning = (await slos()).find((s) => s.slo === "mistral-gpu5-availability" && s.alertState === "page");
      if (!burning) await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(burning, "the bad deploy on GPU5 pages its SLO");
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const before = await slos();
    await page.goto(`${agent.url}/?view=executive&range=24h`);
    await page.waitForSelector("#slo-table tr.slo");
    const after = await slos();

    const rows = page.locator("#slo-table tr.slo");
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.slo));
    assert.deepEqual([...shown].sort(), before.map((s) => s.slo).sort(), "a row per SLO the agent evaluates");
    assert.match(await page.textContent("#slo-summary"), new RegExp(`^${before.length} SLOs, [1-9]\\d* paging`));
    const row = page.locator('#slo-table tr.slo[data-slo="mistral-gpu5-availability"]');
    assert.match(await row.locator(".state").textContent(), /^page$/);
    assert.match(await row.textContent(), /mistral-7b-instruct/);
    assert.match(await row.textContent(), /99\.00 %/, "the objective");
    // The figures are the API's: each row's state and 5m burn rate as the agent gave them around the load
    // (where the two readings agree, as the burn moves between them).
    for (const s of before) {
      const a = after.find((x) => x.slo === s.slo);
      const r = page.locator(`#slo-table tr.slo[data-slo="${s.slo}"]`);
      if (a.alertState === s.alertState) assert.equal(await r.locator(".state").textContent(), s.alertState, s.slo);
      const burn5m = Number((await r.locator("td.burn").first().textContent()).replace("×", ""));
      const [lo, hi] = [Math.min(s.burnRate["5m"], a.burnRate["5m"]), Math.max(s.burnRate["5m"], a.burnRate["5m"])];
      assert.ok(burn5m >= lo * 0.99 - 0.01 && burn5m <= hi * 1.01 + 0.01, `${s.slo}: 5m burn ${burn5m} within ${lo}..${hi}`);
    }
    // A page's budget: its bar and figure, burning (the 5m burn rate over the page threshold is marked).
    assert.match(await row.locator(".budget-value").textContent(), /^-?\d+(\.\d)? %$/);
    assert.equal(await row.locator("td.burn.page").first().count(), 1);
    assert.ok(await row.locator(".cause").textContent(), "a page says its GPU cause, or that none was found");
    assert.deepEqual(errors, []);
  });
});

describe("a node with 1,000 processes", () => {
  // 125 processes on every GPU (tests/web/many_processes_scenario.mjs, as the UI benchmark's node).
  const base = () => readFileSync(join(process.env.GPUWATCH_SOURCE_DIR, "scenarios/bench-8xh200.yaml"), "utf8");
  const env = agentWithFile("many.yaml", "", (file) => {
    writeFileSync(file, manyProcessesScenario(base(), 1000));
    return { historySeconds: 60, scenario: file };
  });
  const pids = (page) => page.locator("#processes tr.process td:first-child").allTextContents();
  // The query strings of the page's /api/v1/gpus requests: every process on the node is half a megabyte, so
  // a view asks for no more than it shows ("" would be every GPU with every process).
  const gpusAsked = (page) => {
    const asked = new Set();
    page.on("request", (r) => {
      const url = new URL(r.url());
      if (url.pathname === "/api/v1/gpus") asked.add(url.search);
    });
    return asked;
  };

  test("debug: the process table pages, sorts and filters, and keeps its place across refreshes", async () => {
    const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const asked = gpusAsked(page);
    // 15 minutes: the 60 s of history are 20 steps of each series.
    await page.goto(`${env.agent.url}/?view=debug&gpu=0&range=15m`);
    await page.waitForSelector("#process-page");
    assert.equal(await page.textContent("#process-count"), "125 processes");
    assert.equal(await page.textContent("#process-page"), "page 1 of 5");
    assert.equal(await page.locator("#processes tr.process").count(), 25, "a page of rows, not 125");
    // Largest memory first, as the agent reports it.
    const memory = await page.locator("#processes tr.process td:nth-child(5)").allTextContents();
    const mib = memory.map((m) => Number.parseFloat(m) * (m.endsWith("GiB") ? 1024 : 1));
    assert.deepEqual(mib, [...mib].sort((a, b) => b - a));

    // By PID: descending first (a number column), then ascending; the pages follow the order.
    await page.click('th[data-sort="pid"]');
    await page.click('th[data-sort="pid"]');
    const gpu0 = (await env.agent.gpus()).devices[0].processes.map((p) => p.pid).sort((a, b) => a - b);
    assert.equal(gpu0.length, 125);
    assert.deepEqual((await pids(page)).map(Number), gpu0.slice(0, 25));
    await page.click("#process-next");
    assert.equal(await page.textContent("#process-page"), "page 2 of 5");
    assert.deepEqual((await pids(page)).map(Number), gpu0.slice(25, 50));
    // A refresh (every 10 s) redraws the table: it stays on its page and order.
    const before = Number(await page.getAttribute("body", "data-refreshes"));
    await page.waitForFunction((n) => Number(document.body.dataset.refreshes) > n, before, { timeout: 30_000 });
    assert.equal(await page.textContent("#process-page"), "page 2 of 5");
    assert.deepEqual((await pids(page)).map(Number), gpu0.slice(25, 50));

    // Many processes on one plot read as none: the panels draw the ten using the most now.
    assert.match(await page.textContent('.panel:has([data-panel="process-memory"]) h3'), /the 10 of 125 using the most now/);
    assert.equal(await page.getAttribute('[data-panel="process-memory"]', "data-series"), "10");
    assert.ok((await points(page, '[data-panel="process-memory"]')) >= 100);

    // A filter finds one process among them; its row opens it.
    await page.fill("#process-filter", String(gpu0[1]));
    await page.waitForFunction(() => document.querySelector("#process-count").textContent === "1 of 125 processes");
    assert.deepEqual((await pids(page)).map(Number), [gpu0[1]]);
    await page.click("#processes tr.process");
    await page.waitForURL(new RegExp(`pid=${gpu0[1]}`));
    await page.waitForFunction(() => document.querySelector('[data-panel="process-memory"]')?.dataset.series === "1");
    assert.match(await page.textContent("main"), new RegExp(`Process ${gpu0[1]} `));
    assert.doesNotMatch(await page.textContent("main"), /not on this GPU now/, "the process is found on its GPU");
    // The GPUs without their processes (the picker) and GPU 0 with its processes; never every process.
    assert.deepEqual([...asked].sort(), ["?gpu=0", "?processes=false"]);
    assert.deepEqual(errors, []);
  });

  test("debug without a GPU in the link shows the node's first, with its processes", async () => {
    const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const asked = gpusAsked(page);
    await page.goto(`${env.agent.url}/?view=debug&range=15m`);
    await page.waitForSelector("#process-page");
    assert.equal(await page.inputValue("#gpu"), "0");
    assert.equal(await page.textContent("#process-count"), "125 processes");
    assert.equal(await page.locator("#gpu option").count(), 8, "every GPU in the picker");
    assert.deepEqual([...asked].sort(), ["?gpu=0", "?processes=false"]);
  });

  test("on-call: every GPU's row counts its 125 processes", async () => {
    const page = await env.browser.newPage();
    const asked = gpusAsked(page);
    await page.goto(`${env.agent.url}/`);
    await page.waitForSelector("#gpus tbody tr.gpu-row >> nth=7");
    for (const cell of await page.locator("#gpus tr.gpu-row td:last-child").allTextContents()) assert.equal(cell, "125");
    // A count a GPU is all the view shows: it asks for no process list.
    assert.deepEqual([...asked], ["?processes=false"]);
  });
});
