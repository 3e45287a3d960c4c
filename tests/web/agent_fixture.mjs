// Starts gpuwatch on the simulated incidents node (libnvml-sim) on 127.0.0.1 with its own temporary folder,
// and Chromium (Debian's, driven by playwright-core): for the browser tests, the screenshots and the UI
// benchmark. The agent runs the scenario in lockstep from an epoch in the past, so it lays down that much
// history at once and then follows the clock: the faults due later happen while the test watches.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CHROMIUM = "/usr/bin/chromium";

export function paths() {
  const source = process.env.GPUWATCH_SOURCE_DIR;
  const build = process.env.GPUWATCH_BINARY_DIR;
  if (!source || !build) throw new Error("set GPUWATCH_SOURCE_DIR and GPUWATCH_BINARY_DIR (ctest does)");
  return {
    source,
    build,
    gpuwatch: join(build, "gpuwatch"),
    sim: join(build, "sim-lib/libnvidia-ml.so.1"),
    scenario: join(source, "scenarios/incidents-8xh200.yaml"),
    playwright: join(source, "web/node_modules/playwright-core/index.mjs"),
  };
}

export async function loadPlaywright() {
  const p = paths();
  if (!existsSync(p.playwright)) {
    throw new Error(`${p.playwright} is missing: scripts/install-deps.sh runs npm ci in web/`);
  }
  return import(p.playwright);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Serves the scenario's model servers (`gpuwatch sim serve`) with the agent's clock and adds their sockets to
// its proc tree, where the agent's discovery finds them on their GPUs; resolves once they listen.
function serveModels(p, sim, procRoot, env) {
  const child = spawn(p.gpuwatch, ["sim", "serve", ...sim, "--proc-root", procRoot], { env, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`gpuwatch sim serve exited with ${code}`)));
    child.stdout.once("data", () => resolve(child)); // its first line says where the servers listen
  });
}

// An agent; `historySeconds` of scenario time lie behind it when it is ready. `args` are more flags;
// `dataDir` a history to start from (kept), instead of a fresh one in the temporary folder. `mode` is the
// simulator's clock: lockstep lays the history down at once; scaled follows the clock from the epoch, as
// `services` (the scenario's model servers, which count requests per wall second) need.
export async function startAgent({ historySeconds = 450, args = [], scenario, dataDir, mode = "lockstep", services = false } = {}) {
  const p = paths();
  const dir = mkdtempSync(join(tmpdir(), "gpuwatch-web-"));
  const port = await freePort();
  const kmsg = join(dir, "kmsg");
  writeFileSync(kmsg, "");
  const sim = ["--nvml-library", p.sim, "--sim-scenario", scenario ?? p.scenario];
  const made = spawnSync(p.gpuwatch, ["sim", "proc-tree", ...sim, "--proc-root", join(dir, "proc")]);
  if (made.status !== 0) throw new Error(`gpuwatch sim proc-tree: ${made.stderr}`);
  const epoch = Math.floor(Date.now() / 1000) - historySeconds;
  const env = { ...process.env, GPUWATCH_SIM_EPOCH: String(epoch), GPUWATCH_SIM_MODE: mode, GPUWATCH_SIM_KMSG: kmsg };
  const servers = services ? await serveModels(p, sim, join(dir, "proc"), env) : null;
  const child = spawn(
    p.gpuwatch,
    ["agent", ...sim, "--listen", `127.0.0.1:${port}`, "--data-dir", dataDir ?? join(dir, "data"), "--proc-root", join(dir, "proc"),
      "--kmsg", kmsg, "--runbook-dir", join(p.source, "docs/runbooks"), "--log-level", "warn", ...args],
    { env, stdio: ["ignore", "inherit", "inherit"] },
  );
  const url = `http://127.0.0.1:${port}`;
  const agent = {
    url,
    dir,
    epoch,
    async gpus() {
      return (await fetch(`${url}/api/v1/gpus`)).json();
    },
    async stop() {
      for (const c of [child, servers]) {
        if (c && c.exitCode === null) {
          c.kill("SIGTERM");
          await new Promise((r) => c.once("exit", r));
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // Ready, and caught up with the clock: the history behind it is laid down.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the agent exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      await agent.stop();
      throw new Error("the agent did not catch up with the clock within 60 s");
    }
    try {
      const snap = await agent.gpus();
      if (Date.now() - snap.timestamp_ms < 3000) return agent;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
}

export async function startBrowser() {
  const { chromium } = await loadPlaywright();
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
}
