#!/usr/bin/env node
// Makes the screenshots of docs/ui.md (docs/ui/*.png): the three views and a runbook, in Debian's chromium,
// on an agent running the simulated incidents node with 11 minutes of history (every fault has begun), and the
// executive view's SLO panel on an agent scraping scenarios/inference-slo-8xh200.yaml's model servers with its
// SLOs, 10 minutes into that scenario (its faults have begun to burn them).
//   GPUWATCH_SOURCE_DIR=. GPUWATCH_BINARY_DIR=build node scripts/ui-screenshots.mjs
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startAgent, startBrowser, paths } from "../tests/web/agent_fixture.mjs";

process.env.GPUWATCH_SOURCE_DIR ??= join(import.meta.dirname, "..");
process.env.GPUWATCH_BINARY_DIR ??= join(process.env.GPUWATCH_SOURCE_DIR, "build");
const out = join(paths().source, "docs/ui");
mkdirSync(out, { recursive: true });

const shots = [
  ["oncall.png", "/"],
  ["debug.png", "/?view=debug&gpu=0&range=15m&expr=max%20by%20(gpu)%20(gpu_temperature_celsius)"],
  ["executive.png", "/?view=executive&range=24h"],
  ["runbook.png", "/?view=runbook&name=GpuThermalSlowdown"],
];

const agent = await startAgent({ historySeconds: 660 });
const browser = await startBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  for (const [file, path] of shots) {
    await page.goto(agent.url + path);
    await page.waitForFunction(() => Number(document.body.dataset.refreshes ?? 0) >= 1);
    await page.screenshot({ path: join(out, file), fullPage: true });
    console.log(`docs/ui/${file}: ${path}`);
  }
} finally {
  await browser.close();
  await agent.stop();
}

const scenarios = join(paths().source, "scenarios");
const serving = await startAgent({
  scenario: join(scenarios, "inference-slo-8xh200.yaml"),
  mode: "scaled",
  services: true,
  historySeconds: 600,
  args: ["--slo-files", join(scenarios, "inference-slo-8xh200.slos.yaml")],
});
const browser2 = await startBrowser();
try {
  // Two scrapes at least, so every SLO has a rate.
  await new Promise((r) => setTimeout(r, 15_000));
  const page = await browser2.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${serving.url}/?view=executive&range=24h`);
  await page.waitForSelector("#slo-table tr.slo");
  await page.locator("#slos").screenshot({ path: join(out, "executive-slo.png") });
  console.log("docs/ui/executive-slo.png: the SLO panel");
} finally {
  await browser2.close();
  await serving.stop();
}
