// The launcher starts each bundle from a V8 code cache. V8 checks a cache against the length of its source, not its
// content, and runs the code the cache holds: a cache compiled from any other text of the same length runs that text.
// An installed hcp (the npm package ships no cache) made its caches in the user's cache folder (~/.cache/rungrad/v8,
// or $XDG_CACHE_HOME's, relative to the working folder when relative), which an agent allowed the user's caches, or
// the workspace, could write: its code then ran inside every later hcp, `hcp approve` at the person's terminal
// included. The attack: plant such a cache wherever the launcher looked, and run the installed programs.

import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { test } from "node:test";
import type { Script } from "node:vm";
import { isolatedEnv } from "./hardening.js";
import { REPO, run } from "./helpers.js";
import { tempDir } from "../transports/support.js";

const BIN = `${REPO}dist/bin`;
const { compile } = createRequire(import.meta.url)(`${BIN}/launch.cjs`) as { compile: (bundle: string, cachedData: Buffer | null) => Script };

/** A copy of the programs as npm installs them: no code cache. */
function installed(): string {
  const dir = tempDir("hcp-installed-");
  for (const file of ["hcp.cjs", "hcp.bundle.cjs", "hcp-run.bundle.cjs", "launch.cjs", "watchdog-program.js", "package.json"]) copyFileSync(join(BIN, file), join(dir, file));
  return dir;
}

/**
 * The code cache of a text of the bundle's length that appends a line to `witness`: one V8 accepts for the bundle.
 * Compiled by the launcher itself, so that its wrapper is the launcher's.
 */
function forgedCache(bundle: string, witness: string): Buffer {
  const length = readFileSync(bundle, "utf8").length;
  const code = `require("node:fs").appendFileSync(${JSON.stringify(witness)}, "the agent's code ran in hcp\\n");`;
  const forged = join(tempDir("hcp-forged-"), "forged.cjs");
  writeFileSync(forged, code.padEnd(length, " "));
  const script = compile(forged, null);
  assert.equal(compile(bundle, script.createCachedData()).cachedDataRejected, false, "V8 takes the forged cache for the bundle");
  return script.createCachedData();
}

/** The name an earlier launcher gave a bundle's cache in a user's cache folder (rungrad/v8/). */
function cacheName(bundle: string): string {
  const st = statSync(bundle);
  return `${basename(bundle)}-${st.size}-${Math.floor(st.mtimeMs)}-${process.version}-${process.arch}.cache`;
}

test("attack: a forged V8 code cache planted in the user's cache folder (~/.cache, $XDG_CACHE_HOME, a relative XDG_CACHE_HOME in the workspace) never runs: hcp --help, hcp run and hcp approve --list run hcp's own code", async () => {
  const dir = installed();
  const witness = join(tempDir("hcp-witness-"), "ran");
  const workspace = tempDir("hcp-workspace-");
  const base = isolatedEnv();
  const absolute = join(tempDir("hcp-xdg-cache-"), "cache");
  const homes = [join(base["HOME"]!, ".cache"), absolute, join(workspace, "cache")];
  for (const bundle of ["hcp.bundle.cjs", "hcp-run.bundle.cjs"].map((b) => join(dir, b))) {
    const cache = forgedCache(bundle, witness);
    for (const home of homes) {
      mkdirSync(join(home, "rungrad", "v8"), { recursive: true });
      writeFileSync(join(home, "rungrad", "v8", cacheName(bundle)), cache);
    }
  }
  for (const xdg of [undefined, absolute, "cache"]) {
    const env = { ...base, XDG_CACHE_HOME: xdg };
    for (const args of [["--help"], ["run", "--help"], ["approve", "--list"]]) {
      const expected = await run(process.execPath, [join(BIN, "hcp.cjs"), ...args], { env, cwd: workspace });
      const r = await run(process.execPath, [join(dir, "hcp.cjs"), ...args], { env, cwd: workspace });
      assert.equal(existsSync(witness), false, `XDG_CACHE_HOME=${xdg}, hcp ${args.join(" ")}: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);
      assert.deepEqual(r, expected, `XDG_CACHE_HOME=${xdg}, hcp ${args.join(" ")}`);
    }
  }
});
