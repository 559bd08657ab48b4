// Starts a bundled program with a V8 code cache, and loads the bundles it requires when it needs them (Ajv) the
// same way. Node 20 has no compile cache for modules, and parsing and compiling the bundle is the largest part of start-up. A checkout's build writes the cache next to the bundle;
// the npm package ships none (a cache is only good for one V8 version), so an installed program makes its own on
// its first run, next to the bundle too when its folder can be written (runtimeCachePath says why never elsewhere),
// named after the bundle and the Node version. V8 rejects a cache made by another V8 or with other flags; the bundle
// then compiles as usual.
// Copied to dist/bin by scripts/postbuild.mjs, next to the bundles it starts.
"use strict";

const { closeSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync, writeSync } = require("node:fs");
const { dirname } = require("node:path");
const { StringDecoder } = require("node:string_decoder");
const { Script } = require("node:vm");

// SIGUSR1 would start Node's inspector, on a port where any local user can run code in this process: whoever can
// signal it (a run's program, an agent through a verb that signals) must not open that. A listener keeps Node from it.
process.on("SIGUSR1", () => {});

function readOrNull(path) {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

/**
 * A UTF-8 file's text, read 64 KiB at a time. Node's readFileSync(file, "utf8") reads into a buffer it doubles
 * (a 553 KB bundle into 1 MiB), and freeing a block that large makes glibc raise its mmap threshold to it and its
 * trim threshold to twice it: each thread's malloc arena then keeps up to 2 MiB it has freed, memory that every
 * fork of a server (one per call) copies the page tables of, and that faults after each fork when touched again.
 * Pieces of 64 KiB stay under glibc's first threshold (128 KiB). (StringDecoder, not TextDecoder: its text of ASCII
 * is one byte a character, as readFileSync's; TextDecoder's two-byte text made compiling from the cache 5 ms slower.)
 */
function readText(file) {
  const fd = openSync(file, "r");
  try {
    const piece = Buffer.allocUnsafeSlow(65536);
    const decoder = new StringDecoder("utf8");
    let text = "";
    for (;;) {
      const n = readSync(fd, piece, 0, piece.length, null);
      if (n === 0) return text + decoder.end();
      text += decoder.write(piece.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The V8 flags the program set while it runs, each as [its value at start, its value now]: a long-running server sets
 * the growth factor of its young generation (src/cli/hcp/young-generation.ts, through src/cli/v8-flag.ts). V8 stamps a
 * code cache with a hash of every flag and rejects one whose stamp is not the hash of the flags as they are, so a
 * bundle loaded after such a change lost its cache, and the cache written for it at exit was one that no later start
 * accepts. Caches are read and made under the flags the process started with (underStartFlags).
 */
const setFlags = new Map();

/** Sets V8's `--NAME=VALUE` while the program runs; `atStart`: its value when the process started. */
function setV8Flag(name, value, atStart) {
  const flag = setFlags.get(name);
  if (flag === undefined) setFlags.set(name, [atStart, value]);
  else flag[1] = value;
  require("node:v8").setFlagsFromString(`--${name}=${value}`);
}

/**
 * `make()`, under the V8 flags as they were at start (a code cache's flag hash: setFlags). A collection meanwhile may
 * grow the young generation by V8's own factor: one step, for the time of one compile.
 */
function underStartFlags(make) {
  if (setFlags.size === 0) return make();
  const { setFlagsFromString } = require("node:v8");
  for (const [name, [atStart]] of setFlags) setFlagsFromString(`--${name}=${atStart}`);
  try {
    return make();
  } finally {
    for (const [name, [, now]] of setFlags) setFlagsFromString(`--${name}=${now}`);
  }
}

/** The bundle, wrapped as the CommonJS loader wraps a module, compiled with `cachedData` when there is one (null: none). */
function compile(bundle, cachedData = readOrNull(`${bundle}.cache`)) {
  const source = readText(bundle);
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  return underStartFlags(() => new Script(wrapped, { filename: bundle, cachedData: cachedData ?? undefined }));
}

/** The code cache of what `script` has compiled so far, stamped with the flags the process started with. */
function cachedDataOf(script) {
  return underStartFlags(() => script.createCachedData());
}

/**
 * The cache a start makes for a bundle the build made none for: beside the bundle, one per bundle build and Node
 * version. Never in a folder of the user's such as ~/.cache: V8 checks a code cache against its source's length only,
 * not its content, and runs the code the cache holds, so whoever could write that folder (an agent allowed the user's
 * caches, or the working folder through a relative XDG_CACHE_HOME) would run their own code as hcp, `hcp approve` at
 * the person's terminal included. Beside the bundle, only whoever can already change the bundle can.
 */
function runtimeCachePath(bundle) {
  const st = statSync(bundle);
  return `${bundle}-${st.size}-${Math.floor(st.mtimeMs)}-${process.version}-${process.arch}.cache`;
}

/** Writes the cache as the process exits (it then holds every function the run compiled); never fails the run. */
function saveOnExit(script, path) {
  process.once("exit", () => {
    try {
      const temp = `${path}.${process.pid}.tmp`;
      // Readable as the bundle is: every user of an installation shares its caches.
      writeFileSync(temp, cachedDataOf(script), { mode: 0o644 });
      renameSync(temp, path);
    } catch {
      // a read-only or missing home: run without a cache next time too
    }
  });
}

/**
 * The bundle's `require`: the launcher's own for a bundle beside it (the programs' bundles; it resolves from the same
 * folder), so that a start does not load node:module, which brings the ES module loader with it (4 of Node's modules).
 */
function requireFor(bundle) {
  return dirname(bundle) === __dirname ? require : require("node:module").createRequire(bundle);
}

/** Runs the bundle as a CommonJS module; returns its exports. */
function run(script, bundle) {
  const module = { exports: {} };
  script.runInThisContext()(module.exports, requireFor(bundle), module, bundle, dirname(bundle));
  return module.exports;
}

/** In the build's cache-filling process (writeCache): every bundle's cache is written next to it at exit. */
let building = false;

/** The bundle compiled with the build's cache, else the one a start made (on first use, written at exit). */
function compileCached(bundle) {
  if (building) {
    const script = compile(bundle, null);
    process.once("exit", () => writeFileSync(`${bundle}.cache`, cachedDataOf(script)));
    return script;
  }
  const built = readOrNull(`${bundle}.cache`);
  if (built !== null) {
    const script = compile(bundle, built);
    if (!script.cachedDataRejected) return script;
  }
  let path;
  try {
    path = runtimeCachePath(bundle);
  } catch {
    return compile(bundle, null);
  }
  const script = compile(bundle, readOrNull(path));
  if (script.cachedDataRejected !== false) saveOnExit(script, path);
  return script;
}

/**
 * `PROGRAM --version` (or `-v`), and nothing else: writes `versionLine`, the line the program itself prints
 * (captured from it by the build), without loading the program. Returns false for any other command line, or
 * when stdout cannot take the line at once (the program then prints it itself).
 */
function printVersion(versionLine) {
  const args = process.argv.slice(2);
  if (versionLine === undefined || args.length !== 1 || (args[0] !== "--version" && args[0] !== "-v")) return false;
  try {
    writeSync(1, versionLine);
  } catch (err) {
    if (err.code !== "EPIPE") return false;
    // The program's exit code for output closed by its reader (src/framework/pipes.ts).
    process.exitCode = 141;
  }
  return true;
}

/**
 * The program has nothing left to do (the event loop is empty: every write to stdout and stderr is done, every child
 * reaped, every timer run): exit now, with process.exitCode. `exit` listeners run as always, but Node does not then
 * tear down V8's heap and its threads one page at a time, which the kernel does at once: a one-shot `hcp run`, whose
 * heap holds the bundle's code, took 57 ms from its child's exit to its own on the slow 2-core VM, 25 ms with this
 * (docs/performance.md). Registered before the program runs, it is the first `beforeExit` listener: one of the
 * program's own would never run (hcp and rungrad have none).
 */
function exitWhenDone() {
  process.exit();
}

/** Runs the bundle as this process's program; `versionLine`: see printVersion. */
function launch(bundle, versionLine) {
  process.once("beforeExit", exitWhenDone);
  if (!printVersion(versionLine)) run(compileCached(bundle), bundle);
}

const required = new Map();

/** A bundle's exports, run once per process, like require (a bundle the program loads only when it needs it). */
function requireBundle(bundle) {
  if (!required.has(bundle)) required.set(bundle, run(compileCached(bundle), bundle));
  return required.get(bundle);
}

/**
 * Build step: runs the bundle once for each argv, one after the other, and, as the process exits,
 * writes its code cache and the cache of each bundle it required, which then hold every function
 * those runs compiled, not only the top level.
 */
function writeCache(bundle, argvs) {
  building = true;
  // Each run adds its exit handlers to this one process: more than Node's default ten is no leak here.
  process.setMaxListeners(0);
  const script = compileCached(bundle);
  const next = () => {
    const argv = argvs.shift();
    if (argv === undefined) return;
    process.argv = [process.argv[0], bundle, ...argv];
    run(script, bundle);
  };
  // Each run starts when the one before has finished all its work.
  process.on("beforeExit", next);
  next();
}

module.exports = { compile, launch, requireBundle, setV8Flag, writeCache };
