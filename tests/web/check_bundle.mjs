// The committed bundle (web/dist, what the C++ build embeds) is what web/build.mjs makes from web/src and
// the locked packages today, and it stays within the page-weight budget: 200 KB gzipped in all.
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { gzipSync } from "node:zlib";

const web = join(process.env.GPUWATCH_SOURCE_DIR, "web");
if (!existsSync(join(web, "node_modules/esbuild"))) {
  console.error(`${web}/node_modules is missing: scripts/install-deps.sh runs npm ci there`);
  process.exit(1);
}
const fresh = mkdtempSync(join(tmpdir(), "gpuwatch-bundle-"));
let failed = false;
try {
  execFileSync(process.execPath, [join(web, "build.mjs"), fresh], { stdio: "inherit" });
  const committed = readdirSync(join(web, "dist")).sort();
  const made = readdirSync(fresh).sort();
  if (JSON.stringify(committed) !== JSON.stringify(made)) {
    console.error(`web/dist holds ${committed.join(", ")}; the build makes ${made.join(", ")}`);
    failed = true;
  }
  let gzipped = 0;
  for (const name of made) {
    const bytes = readFileSync(join(fresh, name));
    gzipped += gzipSync(bytes, { level: 9 }).length;
    const old = committed.includes(name) ? readFileSync(join(web, "dist", name)) : null;
    if (!old || !old.equals(bytes)) {
      console.error(`web/dist/${name} is not what web/src builds: run (cd web && npm run build) and commit web/dist`);
      failed = true;
    }
  }
  console.log(`bundle: ${made.length} files, ${(gzipped / 1024).toFixed(1)} KiB gzipped (budget 200 KB)`);
  if (gzipped > 200 * 1000) {
    console.error("the bundle exceeds 200 KB gzipped");
    failed = true;
  }
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
console.log(failed ? "0 passed, 1 failed" : "1 passed, 0 failed");
process.exit(failed ? 1 : 0);
