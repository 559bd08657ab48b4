// After tsc: bundle the programs into one CommonJS file each (loading one file through the CommonJS
// loader starts far faster than dozens of ES modules), give rungrad and hcp a V8 code cache and a
// launcher that uses it (src/cli/launch.cjs), and mark the entry points executable. Packages that are
// loaded lazily stay external, and are required rather than imported (the launcher's vm.Script has
// no loader for import()).
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { build } from "esbuild";

/**
 * Node built-ins that only some commands use: the bundles require them on first use, not at start-up
 * (child_process alone pulls in net, stream and dgram; crypto is large; readline/promises only asks
 * a person; module, for createRequire of a package loaded when needed, brings Node's ES module loader).
 * Each import gets an object of getters that loads the built-in the first time one of them is read.
 */
const LAZY_BUILTINS = ["child_process", "crypto", "perf_hooks", "fs/promises", "readline/promises", "module"];
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.join("|")})$`);
    // The getters' own require of the built-in resolves as usual (an external).
    b.onResolve({ filter }, (args) => (args.namespace === "lazy-builtin" ? undefined : { path: args.path.replace(/^node:/, ""), namespace: "lazy-builtin" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      const keys = Object.keys(createRequire(import.meta.url)(`node:${args.path}`));
      // The getters sit on the exports' prototype: esbuild's __toESM copies a CommonJS module's own
      // properties into each module that imports it (a getter per key and importer), not its prototype's.
      const contents = `let m;\nconst load = () => (m ??= require("node:${args.path}"));\nconst lazy = {};\nfor (const k of ${JSON.stringify(keys)}) Object.defineProperty(lazy, k, { enumerable: true, get: () => load()[k] });\nmodule.exports = Object.create(lazy);\n`;
      return { contents, loader: "js" };
    });
  },
};

/**
 * Ajv and ajv-formats (the largest modules a one-shot run may need: loaded from node_modules they cost
 * ~25 ms, mostly resolving and compiling their files) go in a bundle of their own, dist/bin/ajv.bundle.cjs,
 * which the programs load through the launcher with its V8 code cache when a schema is first compiled.
 * Its exports are getters, so ajv-formats runs only when asked for. The Ajv class for plain schemas
 * (src/pack/ajv-plain.ts: Ajv's core with four vocabularies) is a smaller bundle, ajv-plain.bundle.cjs, and
 * the interpreting validator a one-shot run tries first (src/pack/interpreted.ts) one more, json-schema.bundle.cjs,
 * RE2, which matches schemas' patterns when a value is first matched against one (src/pack/linear-regexp.ts),
 * one more, re2.bundle.cjs, and the parser that reads a pattern first (src/pack/pattern-syntax.ts) one more,
 * regexpp.bundle.cjs.
 */
const AJV_BUNDLE = "ajv.bundle.cjs";
const AJV_PLAIN_BUNDLE = "ajv-plain.bundle.cjs";
const INTERPRETER_BUNDLE = "json-schema.bundle.cjs";
const RE2_BUNDLE = "re2.bundle.cjs";
const REGEXPP_BUNDLE = "regexpp.bundle.cjs";
/**
 * The MCP SDK's modules that hcp's servers use (src/transports/lazy-sdk.ts), with zod and the Ajv the SDK's Server
 * makes: a bundle of their own, mcp-sdk.bundle.cjs, loaded with its code cache once a server needs the SDK. From
 * node_modules, the CPU of a stdio server's session on the slow VM was 395 ms against 230 ms (docs/performance.md).
 */
const SDK_BUNDLE = "mcp-sdk.bundle.cjs";
const OPENAPI_PARSER_BUNDLE = "openapi-parser.bundle.cjs";
const LIBRARY_BUNDLES = {
  [AJV_BUNDLE]: `module.exports = {
  get Ajv2020() { return require("ajv/dist/2020.js").default; },
  get addFormats() { return require("ajv-formats").default; },
};`,
  [AJV_PLAIN_BUNDLE]: `module.exports = require("./dist/src/pack/ajv-plain.js");`,
  [INTERPRETER_BUNDLE]: `module.exports = { Validator: require("@cfworker/json-schema").Validator };`,
  [RE2_BUNDLE]: `module.exports = { RE2JS: require("re2js").RE2JS };`,
  [REGEXPP_BUNDLE]: `module.exports = { RegExpParser: require("@eslint-community/regexpp").RegExpParser };`,
  [OPENAPI_PARSER_BUNDLE]: `module.exports = { dereference: require("@readme/openapi-parser").dereference };`,
  [SDK_BUNDLE]: `module.exports = {
  get server() { return require("@modelcontextprotocol/sdk/server/index.js"); },
  get types() { return require("@modelcontextprotocol/sdk/types.js"); },
  get streamableHttp() { return require("@modelcontextprotocol/sdk/server/streamableHttp.js"); },
};`,
};
/**
 * In the programs' bundles three modules are the launcher's: src/pack/lazy-modules.ts and src/transports/lazy-sdk.ts,
 * whose modules the launcher loads each from its bundle, and src/cli/v8-flag.ts, whose flags the launcher keeps from
 * spoiling the bundles' code caches.
 */
const fromLauncher = {
  name: "from-launcher",
  setup(b) {
    const load = (name) => `require("./launch.cjs").requireBundle(require("node:path").join(__dirname, ${JSON.stringify(name)}))`;
    b.onResolve({ filter: /\/lazy-modules\.js$/ }, (args) => ({ path: args.path, namespace: "lazy-from-bundle" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-from-bundle" }, () => ({
      contents: `export function ajvModules() {\n  return ${load(AJV_BUNDLE)};\n}\nexport function plainAjvClass() {\n  return ${load(AJV_PLAIN_BUNDLE)}.AjvPlain;\n}\nexport function interpreterClass() {\n  return ${load(INTERPRETER_BUNDLE)}.Validator;\n}\nexport function re2Class() {\n  return ${load(RE2_BUNDLE)}.RE2JS;\n}\nexport function regexpParserClass() {\n  return ${load(REGEXPP_BUNDLE)}.RegExpParser;\n}\nexport function openApiDereference() {\n  return ${load(OPENAPI_PARSER_BUNDLE)}.dereference;\n}\n`,
      loader: "js",
    }));
    const sdk = ([name, module]) => `export async function ${name}Module() {\n  return ${load(SDK_BUNDLE)}.${module};\n}\n`;
    b.onResolve({ filter: /\/lazy-sdk\.js$/ }, (args) => ({ path: args.path, namespace: "lazy-sdk" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-sdk" }, () => ({ contents: Object.entries({ sdkServer: "server", sdkTypes: "types", sdkStreamableHttp: "streamableHttp" }).map(sdk).join(""), loader: "js" }));
    b.onResolve({ filter: /\/v8-flag\.js$/ }, (args) => ({ path: args.path, namespace: "v8-flag-of-launcher" }));
    b.onLoad({ filter: /.*/, namespace: "v8-flag-of-launcher" }, () => ({ contents: `export const { setV8Flag } = require("./launch.cjs");\n`, loader: "js" }));
    b.onResolve({ filter: /^\.\/launch\.cjs$/ }, () => ({ path: "./launch.cjs", external: true }));
  },
};

/**
 * `hcp run` as the first word (a one-shot run, started anew for every call an agent makes) starts hcp-run.bundle.cjs:
 * hcp built from the same entry, with the modules of hcp's other commands left out (HCP_OTHER_COMMANDS, imported by
 * src/cli/hcp.ts on first use only: the command line, its help and its errors are the same). A quarter smaller, with a
 * code cache as much smaller: V8 reads the whole cache at start, whatever the run then calls. Any other command line
 * (`hcp --json run …` too) starts the whole of hcp.
 */
const RUN_BUNDLES = { hcp: { run: "hcp-run" } };
const HCP_OTHER_COMMANDS = /^\.\/hcp\/(approve|audit|credentials|init|mcp-config|packs|serve|trust)\.js$/;
const onlyRun = {
  name: "only-run",
  setup(b) {
    b.onResolve({ filter: HCP_OTHER_COMMANDS }, (args) =>
      args.importer.endsWith("/cli/hcp.js") ? { path: join(args.resolveDir, args.path), namespace: "only-run" } : undefined,
    );
    // Never called: hcp.cjs starts this bundle only for `hcp run`, whose handler is run.js. Said plainly if one were.
    b.onLoad({ filter: /.*/, namespace: "only-run" }, (args) => {
      const names = [...readFileSync(args.path, "utf8").matchAll(/^export (?:async )?function (\w+)/gm)].map((m) => m[1]);
      const why = JSON.stringify(`hcp-run.bundle.cjs runs only hcp run; ${basename(args.path)} is in hcp.bundle.cjs`);
      return { contents: names.map((name) => `export function ${name}() { throw new Error(${why}); }\n`).join(""), loader: "js" };
    });
  },
};

/**
 * Programs started through the launcher, with the runs that fill the code cache (one process runs
 * them in turn): a function compiled in none of them is compiled when first called. hcp's cache
 * holds a one-shot `hcp run` of a read verb, with and without arguments (spawning /bin/echo), one
 * whose argument its schema refuses (the plain Ajv bundle's cache: a valid one never loads Ajv), one
 * whose argument has a `format` (the full Ajv bundle's cache), one whose argument has a `pattern`
 * (the caches of RE2's bundle and regexpp's) and two dry runs of an OpenAPI pack's verb (the first parses the document,
 * filling the OpenAPI parser's bundle's cache, and keeps it in the state directory; the second takes it from there), as
 * does hcp-run's. hcp's also holds an MCP server's start and end
 * (`serve --mcp` with its stdin at its end at once, /dev/null: the SDK's bundle's cache).
 */
const ECHO_PACK = "bench/fixtures/echo-pack";
const API_PACK = "bench/fixtures/api-pack";
const REFUSAL = 'Error: invalid arguments for verb "repeat": argument "message": must be string\n';
/** The server's warning that its pack lies in the folder it runs in (the checkout, for these runs): true, and expected. */
const IN_CHECKOUT = /^Warning: pack "echo" lies in .*\n/m;
const HCP_RUNS = [
  ["run", ECHO_PACK, "say"],
  ["run", ECHO_PACK, "repeat", "--arg", "message=hi"],
  ["run", ECHO_PACK, "repeat", "--arg", "message:=1"],
  ["run", "bench/fixtures/stamp-pack", "stamp", "--arg", "at=2026-01-01T00:00:00Z"],
  ["run", "bench/fixtures/stamp-pack", "word", "--arg", "word=hi"],
  ["run", API_PACK, "create-item", "--arg", 'body:={"name":"hi"}', "--dry-run"],
  ["run", API_PACK, "create-item", "--arg", 'body:={"name":"hi"}', "--dry-run"],
];
const LAUNCHED = {
  rungrad: [["--help"]],
  hcp: [...HCP_RUNS, ["serve", "--mcp", ECHO_PACK], ["--help"]],
  "hcp-run": HCP_RUNS,
};

rmSync("dist/bin", { recursive: true, force: true });
mkdirSync("dist/bin");
/** How the programs are bundled. */
const PROGRAMS = {
  outdir: "dist/bin",
  outExtension: { ".js": ".cjs" },
  bundle: true,
  write: false,
  format: "cjs",
  platform: "node",
  target: "node20",
  supported: { "dynamic-import": false },
  external: ["@eslint-community/regexpp", "@modelcontextprotocol/sdk", "@napi-rs/keyring", "@readme/openapi-parser", "ajv", "ajv-formats", "jq-wasm", "re2js", "yaml"],
  // import.meta.url has no CommonJS counterpart: give each bundle its own file URL, made when first read (a start that
  // never reads it makes no URL); import.meta.dirname is the bundle's folder.
  define: { "import.meta.url": "__bundle.url", "import.meta.dirname": "__dirname" },
  banner: { js: '"use strict";\nconst __bundle = { get url() { return require("node:url").pathToFileURL(__filename).href; } };' },
  plugins: [lazyBuiltins, fromLauncher],
  // Without indentation and line breaks the bundles are a third smaller, and V8 starts them faster even
  // from the code cache (a one-shot hcp run ~4 ms, measured). Names are kept: nothing is renamed.
  minifyWhitespace: true,
  logLevel: "warning",
};
const programs = await build({ ...PROGRAMS, entryPoints: { rungrad: "dist/src/cli/rungrad.js", hcp: "dist/src/cli/hcp.js", rgref: "dist/examples/rgref/main.js" } });
const hcpRun = await build({ ...PROGRAMS, entryPoints: { "hcp-run": "dist/src/cli/hcp.js" }, plugins: [...PROGRAMS.plugins, onlyRun] });
for (const [name, contents] of Object.entries(LIBRARY_BUNDLES)) {
  await build({
    stdin: { contents, resolveDir: ".", sourcefile: name.replace(/\.bundle\./, "-entry."), loader: "js" },
    outfile: `dist/bin/${name}`,
    bundle: true,
    minifyWhitespace: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
}

// hcp's watchdog (src/runtime/process/watchdog.ts) is a program of its own, started beside the programs' bundles: one small
// file, never the whole of hcp. CommonJS (dist/bin/package.json says so for the .js files there: this one only): as
// an ES module its node started the ES module loader, which reads the file through libuv's threads, 4 to 6 ms more of
// CPU at every start, competing with a one-shot hcp run on a two-core machine.
await build({
  entryPoints: ["dist/src/runtime/process/watchdog-program.js"],
  outfile: "dist/bin/watchdog-program.js",
  bundle: true,
  minifyWhitespace: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  logLevel: "warning",
});
writeFileSync("dist/bin/package.json", '{ "type": "commonjs" }\n');

for (const file of [...programs.outputFiles, ...hcpRun.outputFiles]) {
  const name = file.path.replace(/^.*\/|\.cjs$/g, "");
  if (!Object.hasOwn(LAUNCHED, name)) {
    writeFileSync(file.path, file.text);
    continue;
  }
  // The launcher wraps the bundle in a function, where a #! line would be a syntax error.
  const bundle = `dist/bin/${name}.bundle.cjs`;
  writeFileSync(bundle, file.text.replace(/^#!.*\n/, ""));
  // A bundle of a program's one command is started by the program's entry point.
  if (!Object.values(RUN_BUNDLES).some((by) => Object.values(by).includes(name))) writeFileSync(file.path, entryPoint(name));
}
copyFileSync("src/cli/launch.cjs", "dist/bin/launch.cjs");

/**
 * A launched program's entry point: the launcher starts its bundle, or the bundle of the command named by the first
 * word (RUN_BUNDLES), answering `--version` alone with `versionLine`, if given.
 */
function entryPoint(name, versionLine) {
  const line = versionLine === undefined ? "" : `, ${JSON.stringify(versionLine)}`;
  let bundle = JSON.stringify(`${name}.bundle.cjs`);
  // A help request (--help, or -h alone or among shorthands, anywhere) starts the whole program: the help of a verb
  // (`hcp run PACK VERB --help`) is hcp describe's, which the command's own bundle leaves out.
  const notHelp = "!process.argv.some((a) => /^-(-help$|[^-]*h)/.test(a))";
  for (const [word, other] of Object.entries(RUN_BUNDLES[name] ?? {})) bundle = `process.argv[2] === ${JSON.stringify(word)} && ${notHelp} ? ${JSON.stringify(`${other}.bundle.cjs`)} : ${bundle}`;
  return `#!/usr/bin/env node\n"use strict";\nrequire("./launch.cjs").launch(require("node:path").join(__dirname, ${bundle})${line});\n`;
}

/** Trusts `packs` in the state directory of `env`, as `hcp trust` does once a person says yes (the built runtime's own function). */
async function trustAsPerson(packs, env) {
  const { loadPack } = await import("../dist/src/pack/load.js");
  const { stateDirOf } = await import("../dist/src/runtime/approval/state.js");
  const { realPackPath, trustPack } = await import("../dist/src/runtime/trust/trust.js");
  const { loadOpenApiDocuments } = await import("../dist/src/runtime/openapi/packs.js");
  const loaded = packs.map((path) => loadPack(realPackPath(path)));
  await loadOpenApiDocuments(loaded, { fetch: "command-line" });
  for (const pack of loaded) trustPack(pack, stateDirOf(env));
}

// The runs' state, credentials and audit log (a read writes none of them) go to a folder of their own.
const home = mkdtempSync(join(tmpdir(), "hcp-build-"));
const env = { ...process.env, XDG_STATE_HOME: home, XDG_CONFIG_HOME: home, HCP_CREDENTIALS: join(home, "credentials"), HCP_AUDIT: join(home, "audit.jsonl") };
try {
  // hcp run runs only packs a person trusted: the build acts as that person for its own packs, in its own state.
  await trustAsPerson([ECHO_PACK, "bench/fixtures/stamp-pack", API_PACK], env);
  for (const [name, argvs] of Object.entries(LAUNCHED)) {
    const script = `require("./dist/bin/launch.cjs").writeCache(require("node:path").resolve("dist/bin/${name}.bundle.cjs"), ${JSON.stringify(argvs)})`;
    const made = spawnSync(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", env });
    // The refusal of the run with a wrong argument, and the server's warning, are expected; anything else is shown.
    process.stderr.write(made.stderr.replace(REFUSAL, "").replace(IN_CHECKOUT, ""));
    if (made.status !== 0) throw new Error(`code cache for ${name}: exit ${made.status}`);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}

// `rungrad --version` alone is answered by its entry point without loading the program: the line the program prints,
// asked of it here (argv[1] is a placeholder, as for a script: the program reads argv from the third word on).
{
  const script = 'require("./dist/bin/launch.cjs").launch(require("node:path").resolve("dist/bin/rungrad.bundle.cjs"))';
  const asked = spawnSync(process.execPath, ["-e", script, "rungrad", "--version"], { encoding: "utf8" });
  if (asked.status !== 0 || !/^rungrad version \S+\n$/.test(asked.stdout)) throw new Error(`rungrad --version: exit ${asked.status}: ${asked.stderr}`);
  writeFileSync("dist/bin/rungrad.cjs", entryPoint("rungrad", asked.stdout));
}

for (const dir of ["dist/src/cli", "dist/bin"]) {
  for (const name of readdirSync(dir)) {
    if (/^(rungrad|hcp|rgref)\.c?js$/.test(name)) chmodSync(`${dir}/${name}`, 0o755);
  }
}
