// After tsc: bundle the programs into one CommonJS file each (Node 20 has no compile cache, and
// loading one file through the CommonJS loader starts far faster than dozens of ES modules), then
// mark the entry points executable. Packages that are loaded lazily stay external.
import { chmodSync, readdirSync, rmSync } from "node:fs";
import { build } from "esbuild";

rmSync("dist/bin", { recursive: true, force: true });
await build({
  entryPoints: { rungrad: "dist/src/cli/rungrad.js", hcp: "dist/src/cli/hcp.js", rgref: "dist/examples/rgref/main.js" },
  outdir: "dist/bin",
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["@modelcontextprotocol/sdk", "ajv", "ajv-formats", "jq-wasm", "yaml"],
  // import.meta.url has no CommonJS counterpart: give each bundle its own file URL.
  define: { "import.meta.url": "__bundle_url" },
  banner: { js: '"use strict";\nconst __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
});

for (const dir of ["dist/src/cli", "dist/bin"]) {
  for (const name of readdirSync(dir)) {
    if (/\.c?js$/.test(name)) chmodSync(`${dir}/${name}`, 0o755);
  }
}
