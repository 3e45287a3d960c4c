// Bundles the dashboards into dist/ (or the folder given as the first argument): index.html, app.js (every
// module and uPlot, minified), app.css (uPlot's and ours). The C++ build embeds dist/ in the binary; the test
// web.bundle rebuilds into a temporary folder and compares, so the committed bundle is always this source's.
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, "dist");
mkdirSync(out, { recursive: true });

await esbuild.build({
  entryPoints: [join(here, "src/main.js")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2020",
  legalComments: "none",
  outfile: join(out, "app.js"),
  logLevel: "warning",
});
const css =
  readFileSync(join(here, "node_modules/uplot/dist/uPlot.min.css"), "utf8") +
  "\n" +
  readFileSync(join(here, "src/app.css"), "utf8");
const minified = await esbuild.transform(css, { loader: "css", minify: true });
writeFileSync(join(out, "app.css"), minified.code);
copyFileSync(join(here, "src/index.html"), join(out, "index.html"));
