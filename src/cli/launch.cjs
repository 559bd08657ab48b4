// Starts a bundled program with the V8 code cache made for it at build time. Node 20 has no
// compile cache for modules, and parsing and compiling the bundle is the largest part of start-up.
// V8 rejects a cache made by another V8 version or with other flags; the bundle then compiles as usual.
// Copied to dist/bin by scripts/postbuild.mjs, next to the bundles it starts.
"use strict";

const { readFileSync, writeFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { dirname } = require("node:path");
const { Script } = require("node:vm");

/** The bundle, wrapped as the CommonJS loader wraps a module, compiled with its cache when there is one. */
function compile(bundle) {
  let cachedData;
  try {
    cachedData = readFileSync(`${bundle}.cache`);
  } catch {
    // no cache: compile from source
  }
  const source = readFileSync(bundle, "utf8");
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  return new Script(wrapped, { filename: bundle, cachedData });
}

function run(script, bundle) {
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
}

/** Runs the bundle as this process's program. */
function launch(bundle) {
  run(compile(bundle), bundle);
}

/**
 * Build step: runs the bundle with `argv` and, as the process exits, writes its code cache, which
 * then holds every function that run compiled, not only the top level.
 */
function writeCache(bundle, argv) {
  const script = compile(bundle);
  process.argv = [process.argv[0], bundle, ...argv];
  process.once("exit", () => writeFileSync(`${bundle}.cache`, script.createCachedData()));
  run(script, bundle);
}

module.exports = { compile, launch, writeCache };
