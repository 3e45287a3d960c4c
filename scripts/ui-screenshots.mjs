#!/usr/bin/env node
// Makes the screenshots of docs/ui.md (docs/ui/*.png): the three views and a runbook, in Debian's chromium,
// on an agent running the simulated incidents node with 11 minutes of history (every fault has begun).
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
