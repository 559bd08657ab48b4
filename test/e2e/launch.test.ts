// The launcher of the built programs: the build's code cache is one V8 accepts, and a missing or
// foreign cache changes nothing but speed.

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Script } from "node:vm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { isolatedEnv } from "./hardening.js";
import { fixture, REPO, run, withoutRunMarks } from "./helpers.js";

const BIN = `${REPO}dist/bin`;
const { compile, requireBundle } = createRequire(import.meta.url)(`${BIN}/launch.cjs`) as {
  compile: (bundle: string, cachedData?: Buffer) => Script;
  requireBundle: (bundle: string) => unknown;
};

test("a bundle's text is read whole, its characters of two to four bytes intact where they cross the launcher's 64 KiB pieces", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "launch-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // 1 + 2 + 3 + 4 bytes: the pieces' ends fall inside characters of every length.
  const text = "aé€😀".repeat(30_000);
  const bundle = join(dir, "text.bundle.cjs");
  writeFileSync(bundle, `module.exports = ${JSON.stringify(text)};\n`);
  assert.equal(requireBundle(bundle), text);
});

for (const name of ["rungrad", "hcp", "hcp-run"]) {
  test(`${name}: V8 accepts the code cache the build made`, () => {
    assert.equal(compile(`${BIN}/${name}.bundle.cjs`).cachedDataRejected, false);
  });
}

for (const name of ["rungrad", "hcp"]) {
  test(`${name}: without its cache, or with a cache V8 refuses, the program runs the same`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "launch-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    for (const file of [`${name}.cjs`, `${name}.bundle.cjs`, "launch.cjs"]) copyFileSync(`${BIN}/${file}`, join(dir, file));
    const expected = await run(process.execPath, [`${BIN}/${name}.cjs`, "--help"]);
    assert.equal(expected.code, 0);
    // As installed from npm (no cache shipped): the first run makes one beside the bundle, the next uses it.
    const missing = await run(process.execPath, [join(dir, `${name}.cjs`), "--help"]);
    assert.deepEqual(missing, expected);
    const made = cachesIn(dir);
    assert.equal(made.length, 1);
    assert.match(made[0]!, new RegExp(`^${name}\\.bundle\\.cjs-.*-${process.version}-${process.arch}\\.cache$`));
    const startCache = join(dir, made[0]!);
    assert.equal(statSync(startCache).mode & 0o022, 0, "others can write the cache");
    assert.equal(compile(join(dir, `${name}.bundle.cjs`), readFileSync(startCache)).cachedDataRejected, false);
    assert.deepEqual(await run(process.execPath, [join(dir, `${name}.cjs`), "--help"]), expected);
    writeFileSync(join(dir, `${name}.bundle.cjs.cache`), "not a V8 code cache");
    assert.equal(compile(join(dir, `${name}.bundle.cjs`)).cachedDataRejected, true);
    const foreign = await run(process.execPath, [join(dir, `${name}.cjs`), "--help"]);
    assert.deepEqual(foreign, expected);
    writeFileSync(startCache, "not a V8 code cache either");
    assert.deepEqual(await run(process.execPath, [join(dir, `${name}.cjs`), "--help"]), expected);
  });
}

/** The program itself, asked past the entry point's shortcut (argv[1] a placeholder, as for a script). */
const program = (...args: string[]) =>
  run(process.execPath, ["-e", `require(${JSON.stringify(`${BIN}/launch.cjs`)}).launch(${JSON.stringify(`${BIN}/rungrad.bundle.cjs`)})`, "rungrad", ...args]);

test("rungrad --version or -v alone prints what the program prints, without loading it; other command lines are the program's", async (t) => {
  const expected = await program("--version");
  assert.equal(expected.code, 0);
  assert.equal(expected.stdout, `rungrad version ${(JSON.parse(readFileSync(`${REPO}package.json`, "utf8")) as { version: string }).version}\n`);
  // Without the program's bundle at hand, only the entry point and the launcher.
  const dir = mkdtempSync(join(tmpdir(), "launch-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ["rungrad.cjs", "launch.cjs"]) copyFileSync(`${BIN}/${file}`, join(dir, file));
  for (const flag of ["--version", "-v"]) {
    assert.deepEqual(await run(process.execPath, [`${BIN}/rungrad.cjs`, flag]), await program(flag));
    assert.deepEqual(await run(process.execPath, [join(dir, "rungrad.cjs"), flag]), expected);
  }
  // Anything more is the program's to answer: without its bundle, it cannot start.
  for (const args of [["--version", "--json"], ["-v", "agentmeta"], ["--help"]]) {
    assert.deepEqual(await run(process.execPath, [`${BIN}/rungrad.cjs`, ...args]), await program(...args), args.join(" "));
    assert.notEqual((await run(process.execPath, [join(dir, "rungrad.cjs"), ...args])).code, 0, args.join(" "));
  }
});

/** The bundle a cache in the user's cache folder is of (launch.cjs names it BUNDLE-SIZE-MTIME-NODE-ARCH.cache). */
const bundleOfCache = (cache: string) => cache.replace(/-\d+-\d+-v[^-]+-[^-]+\.cache$/, "");
/** The caches starts made in `dir` (the build's are `BUNDLE.cache`). */
const cachesIn = (dir: string) => readdirSync(dir).filter((f) => /-v[^-]+-[^-]+\.cache$/.test(f));

test("hcp: the bundles of Ajv (loaded when arguments are validated), regexpp (when a pattern is read), the OpenAPI parser (when a document is read) and the MCP SDK (when a server needs it) have caches V8 accepts, and run the same without them", async (t) => {
  for (const bundle of ["ajv.bundle.cjs", "ajv-plain.bundle.cjs", "regexpp.bundle.cjs", "openapi-parser.bundle.cjs", "mcp-sdk.bundle.cjs"]) {
    assert.equal(compile(`${BIN}/${bundle}`).cachedDataRejected, false, bundle);
  }
  const dir = mkdtempSync(join(tmpdir(), "launch-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ["hcp.cjs", "hcp-run.bundle.cjs", "ajv.bundle.cjs", "ajv-plain.bundle.cjs", "regexpp.bundle.cjs", "openapi-parser.bundle.cjs", "launch.cjs", "watchdog-program.js"]) {
    copyFileSync(`${BIN}/${file}`, join(dir, file));
  }
  const env = isolatedEnv();
  const verb = (bin: string, message: unknown) => run(process.execPath, [bin, "run", fixture("packs/hcp-probe"), "echo", "--arg", `message:=${JSON.stringify(message)}`], { env });
  for (const message of ["hi", 42]) {
    const expected = await verb(`${BIN}/hcp.cjs`, message);
    assert.equal(expected.code, message === "hi" ? 0 : 1, expected.stderr);
    // As installed from npm: no cache at first (one is made beside the bundle), then that one.
    assert.deepEqual(withoutRunMarks(await verb(join(dir, "hcp.cjs"), message)), withoutRunMarks(expected));
    assert.deepEqual(withoutRunMarks(await verb(join(dir, "hcp.cjs"), message)), withoutRunMarks(expected));
  }
  // An OpenAPI pack's document is dereferenced as the pack loads: a dry run of its write verb plans the request.
  // Each dry run issues a plan_id of its own, and its time: the rest is the same. hcp's parsed copy of the document
  // (document-cache.ts) is removed first, so that each run parses it with the parser's bundle.
  const plan = async (bin: string) => {
    rmSync(join(env["XDG_STATE_HOME"]!, "hcp", "documents"), { recursive: true, force: true });
    const r = await run(process.execPath, [bin, "run", join(REPO, "bench/fixtures/api-pack"), "create-item", "--arg", 'body:={"name":"hi"}', "--dry-run"], { env });
    return { ...r, stdout: r.stdout.replace(/plan_id: \S+/, "plan_id: …").replace(/expires: \S+/, "expires: …") };
  };
  const planned = await plan(`${BIN}/hcp.cjs`);
  assert.equal(planned.code, 0, planned.stderr);
  assert.match(planned.stdout, /request: POST https:\/\/api\.example\.com\/v1\/items/);
  assert.deepEqual(await plan(join(dir, "hcp.cjs")), planned);
  assert.deepEqual(await plan(join(dir, "hcp.cjs")), planned);
  const made = cachesIn(dir).map(bundleOfCache);
  // The probe's `echo` takes a plain schema without `format`: Ajv's core with four vocabularies is enough. `hcp run`
  // starts hcp-run.bundle.cjs (hcp without its other commands), never hcp.bundle.cjs. The probe's `transfer` has a
  // `pattern`, which loading the pack reads (regexpp); matching none, the run never loads RE2.
  assert.deepEqual(made.sort(), ["ajv-plain.bundle.cjs", "hcp-run.bundle.cjs", "openapi-parser.bundle.cjs", "regexpp.bundle.cjs"]);
});

/** `hcp serve --mcp` of the probe pack by `hcp` (an hcp.cjs), its young generation grown before it starts: one call of `echo`, answered; resolves once the server has exited. */
async function serveGrown(hcp: string, env: NodeJS.ProcessEnv): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--require", fixture("young-generation-grown.cjs"), hcp, "serve", "--mcp", fixture("packs/hcp-probe")],
    env: env as Record<string, string>,
    stderr: "pipe",
  });
  const client = new Client({ name: "launch-test", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid!;
  try {
    const r = await client.callTool({ name: "hcp-probe_echo", arguments: { message: "hi" } });
    assert.equal(r.isError, undefined, JSON.stringify(r));
  } finally {
    await client.close();
  }
  // Its code caches are written as it exits.
  while (isRunning(pid)) await sleep(10);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("a server's bound on its young generation (a V8 flag it sets while it runs) costs the bundles it loads afterwards neither the build's caches nor those a start makes", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "launch-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The pack's `transfer` has a pattern (regexpp's bundle, when the packs load) and `echo` a plain schema (Ajv's plain
  // bundle, at the call), loaded after the flag is set, as the MCP SDK's bundle is. The build's caches are accepted: none of the user's is made.
  const before = cachesIn(BIN);
  await serveGrown(`${BIN}/hcp.cjs`, isolatedEnv());
  assert.deepEqual(cachesIn(BIN), before, "a cache was made where the build's serve");
  // As installed from npm, without caches: those made at the server's exit are ones a later start accepts.
  const installed = join(dir, "installed");
  mkdirSync(installed);
  for (const file of ["hcp.cjs", "hcp.bundle.cjs", "ajv-plain.bundle.cjs", "regexpp.bundle.cjs", "mcp-sdk.bundle.cjs", "launch.cjs", "watchdog-program.js", "package.json"]) copyFileSync(`${BIN}/${file}`, join(installed, file));
  await serveGrown(join(installed, "hcp.cjs"), isolatedEnv());
  const made = cachesIn(installed);
  assert.deepEqual(made.map(bundleOfCache).sort(), ["ajv-plain.bundle.cjs", "hcp.bundle.cjs", "mcp-sdk.bundle.cjs", "regexpp.bundle.cjs"]);
  for (const cache of made) {
    assert.equal(compile(join(installed, bundleOfCache(cache)), readFileSync(join(installed, cache))).cachedDataRejected, false, cache);
  }
});

/** A result without its run's duration and mark, which are its own. */
const same = (r: { stdout: string }) => withoutRunMarks({ ...r, stdout: r.stdout.replace(/"duration_ms": \d+/, '"duration_ms": 0') });

test("hcp run through its own bundle (hcp-run.bundle.cjs) answers as the whole of hcp does: help, usage errors, a refusal, a run", async () => {
  const env = isolatedEnv();
  const whole = (...args: string[]) => run(process.execPath, ["-e", `require(${JSON.stringify(`${BIN}/launch.cjs`)}).launch(${JSON.stringify(`${BIN}/hcp.bundle.cjs`)})`, "hcp", ...args], { env });
  const probe = fixture("packs/hcp-probe");
  const lines = [["run", "--help"], ["run"], ["run", probe, "echo", "message=hi"], ["run", probe, "echo", "--bogus"], ["run", probe, "echo", "--arg", "message=hi"], ["run", probe, "echo", "--arg", "message=hi", "--json"]];
  for (const args of lines) assert.deepEqual(same(await run(process.execPath, [`${BIN}/hcp.cjs`, ...args], { env })), same(await whole(...args)), args.join(" "));
  // Global flags before `run`: the whole of hcp, as any other command line.
  assert.deepEqual(same(await run(process.execPath, [`${BIN}/hcp.cjs`, "--json", "run", probe, "echo"], { env })), same(await whole("--json", "run", probe, "echo")));
});

test("the npm package ships no V8 cache, no example bundle, and the LICENSE, docs and framework README", async () => {
  const r = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO });
  assert.equal(r.code, 0, r.stderr);
  const files = (JSON.parse(r.stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
  assert.deepEqual(files.filter((f) => f.endsWith(".cache") || f.endsWith("rgref.cjs")), []);
  for (const f of ["LICENSE", "README.md", "docs/README.md", "docs/exit-codes.md", "src/framework/README.md", "dist/bin/rungrad.cjs", "dist/bin/hcp.cjs", "dist/bin/hcp.bundle.cjs", "dist/bin/hcp-run.bundle.cjs", "dist/bin/launch.cjs", "dist/bin/ajv.bundle.cjs", "dist/bin/ajv-plain.bundle.cjs", "dist/bin/openapi-parser.bundle.cjs", "dist/bin/mcp-sdk.bundle.cjs", "dist/bin/watchdog-program.js", "dist/bin/package.json"]) {
    assert.ok(files.includes(f), `${f} is in the package`);
  }
});
