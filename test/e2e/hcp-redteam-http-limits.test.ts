// Red team: a server (or an agent steering one) holding hcp's HTTP verbs hostage: a decompression bomb, a gzip body
// that never ends, a chain of content codings, a response head or body trickled a byte at a time, a head over any
// limit, a redirect loop. hcp must end each call within its timeout, with bounded memory and a clear answer.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { HCP, mcpClient } from "../transports/support.js";
import { REPO, trustPack, trustBeforeRun } from "./helpers.js";
import { hostileApi, hostileEnv, hostilePack, leakIn, type Hostile } from "./hcp-redteam-http-support.js";

let api: Hostile;

before(async () => {
  api = await hostileApi();
});
after(async () => {
  await api.close();
});

interface Watched {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The largest resident set hcp had (VmHWM, sampled until it exited), in MiB; 0 where /proc is missing. */
  peakMiB: number;
  elapsedMs: number;
  killed: boolean;
}

/** Runs `hcp ARGS` and watches its peak memory in /proc while it runs; killed past a 60 s hang guard. */
async function watched(args: string[], env: NodeJS.ProcessEnv): Promise<Watched> {
  await trustBeforeRun(HCP, args, { env });
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [HCP, ...args], { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let peakKiB = 0;
    let killed = false;
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (m) peakKiB = Math.max(peakKiB, Number(m[1]));
      } catch {
        // gone, or no /proc
      }
    };
    const poll = setInterval(sample, 20);
    const guard = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, 60_000);
    child.on("error", reject);
    child.on("exit", () => sample());
    child.on("close", (code) => {
      clearInterval(poll);
      clearTimeout(guard);
      resolve({ code, stdout, stderr, peakMiB: Math.round(peakKiB / 1024), elapsedMs: Date.now() - started, killed });
    });
  });
}

/** hcp's resident memory for a call that reads a small answer: the baseline a bomb is compared against. */
let baselineMiB = 0;

test("a decompression bomb (2 GiB gzipped once, and twice) stops at max_output_bytes with bounded memory; a chain of 2,000 codings is refused", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  await trustPack(pack, env);
  const base = await watched(["run", pack, "echo", "--json"], env);
  assert.equal(base.code, 0, base.stderr);
  baselineMiB = base.peakMiB;
  for (const codings of ["1", "2"]) {
    const r = await watched(["run", pack, "bomb", "--arg", `codings=${codings}`, "--json"], env);
    assert.equal(r.killed, false, "hcp ended on its own");
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.body_truncated, true);
    // The 1 MiB default cap, less the tail every cut body loses (§12: 6 × the longest secret − 1 bytes).
    const kept = Buffer.byteLength(result.body);
    assert.ok(kept <= 1 << 20 && kept > (1 << 20) - 1024, `${kept} bytes kept`);
    // 2 GiB inflated would need 2 GiB; reading stops at the cap, so hcp stays within a small margin of its baseline.
    if (baselineMiB > 0) assert.ok(r.peakMiB < baselineMiB + 256, `peak ${r.peakMiB} MiB against a baseline of ${baselineMiB} MiB`);
  }
  const chain = await watched(["run", pack, "bomb", "--arg", "codings=2000", "--json"], env);
  assert.equal(chain.code, 2, chain.stderr);
  assert.match(chain.stderr, /"code": "request_failed"/);
  assert.match(chain.stderr, /too many content-encodings/);
});

test("a gzip body that never ends stops at the cap, on run and on MCP, where the server goes on answering", async () => {
  const pack = hostilePack(api.origin, { verbs: { "endless-gzip": { policy: "read", max_output_bytes: 65536 } } });
  const env = hostileEnv();
  await trustPack(pack, env);
  const r = await watched(["run", pack, "endless-gzip", "--json"], env);
  assert.equal(r.killed, false);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).body_truncated, true);
  if (baselineMiB > 0) assert.ok(r.peakMiB < baselineMiB + 256, `peak ${r.peakMiB} MiB`);
  const { client } = await mcpClient([pack], { env });
  try {
    const call = await client.callTool({ name: "notes_endless-gzip", arguments: {} });
    assert.equal((call.structuredContent as { body_truncated: boolean }).body_truncated, true);
    const next = await client.callTool({ name: "notes_echo", arguments: {} });
    assert.equal((next.structuredContent as { status: number }).status, 200, "the server went on");
  } finally {
    await client.close();
  }
});

test("a response head or body trickled a byte every 100 ms ends at timeout_ms: timed_out, exit 2, nothing hangs, nothing leaks", async () => {
  const pack = hostilePack(api.origin, { verbs: { "slow-head": { policy: "read", timeout_ms: 1000 }, "slow-body": { policy: "read", timeout_ms: 1000 } } });
  const env = hostileEnv();
  await trustPack(pack, env);
  const head = await watched(["run", pack, "slow-head", "--json"], env);
  assert.equal(head.killed, false, "ended well before the hang guard");
  assert.equal(head.code, 2, head.stderr);
  const h = JSON.parse(head.stdout);
  assert.deepEqual([h.timed_out, h.status], [true, null]);
  const body = await watched(["run", pack, "slow-body", "--json"], env);
  assert.equal(body.killed, false);
  assert.equal(body.code, 2, body.stderr);
  const b = JSON.parse(body.stdout);
  assert.deepEqual([b.timed_out, b.status, b.body_truncated], [true, 200, true]);
  assert.equal(leakIn(head.stdout + head.stderr + body.stdout + body.stderr), undefined);
});

test("a redirect loop within the origin stops after 5 redirects (its last 3xx is the answer); a head over the limit is a clear request_failed", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  await trustPack(pack, env);
  const from = api.requests.length;
  const loop = await watched(["run", pack, "loop", "--arg", "n=0", "--json"], env);
  assert.equal(loop.killed, false);
  assert.equal(loop.code, 2, loop.stderr);
  const result = JSON.parse(loop.stdout);
  assert.equal(result.status, 302);
  assert.equal(result.headers.location, "/v1/loop?n=6");
  assert.deepEqual(api.requests.slice(from).map((g) => g.url.replace(/&api_key=.*/, "")), [0, 1, 2, 3, 4, 5].map((n) => `/v1/loop?n=${n}`));
  const huge = await watched(["run", pack, "huge-head", "--json"], env);
  assert.equal(huge.killed, false);
  assert.equal(huge.code, 2);
  assert.match(huge.stderr, /"code": "request_failed"/);
  assert.match(huge.stderr, /GET http:\/\/127\.0\.0\.1:\d+\/v1\/huge-head: no response: .*(header|Header)/);
  assert.equal(leakIn(loop.stdout + loop.stderr + huge.stdout + huge.stderr), undefined);
});

test("a body that does not decode (gzip that is not gzip) is a clear request_failed naming the request and why", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  await trustPack(pack, env);
  const r = await watched(["run", pack, "bad-gzip"], env);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /GET http:\/\/127\.0\.0\.1:\d+\/v1\/bad-gzip: the response body could not be read: .*Z_DATA_ERROR/);
  assert.doesNotMatch(r.stderr, /at .*\.js:\d+/, "no stack trace");
  assert.equal(leakIn(r.stdout + r.stderr), undefined);
});

test("a small body of deeply nested JSON (30 KB, 15,000 levels) is refused, not printed as hundreds of megabytes or sent to crash an MCP client", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  await trustPack(pack, env);
  const deep = await watched(["run", pack, "deep", "--arg", "depth=15000", "--json"], env);
  assert.equal(deep.killed, false);
  assert.equal(deep.code, 2, deep.stderr);
  assert.match(deep.stderr, /"code": "invalid_response"/);
  assert.match(deep.stderr, /its body nests arrays and objects more than 64 levels deep/);
  assert.ok(deep.stdout.length < 1 << 20, `${deep.stdout.length} bytes printed`);
  if (baselineMiB > 0) assert.ok(deep.peakMiB < baselineMiB + 256, `peak ${deep.peakMiB} MiB`);
  // 64 levels is JSON as usual; deep JSON not declared as JSON is text, without a parsed value.
  const ok = await watched(["run", pack, "deep", "--arg", "depth=64", "--json"], env);
  assert.equal(ok.code, 0, ok.stderr);
  assert.ok(Array.isArray(JSON.parse(ok.stdout).json));
  const text = await watched(["run", pack, "deep", "--arg", "depth=15000", "--arg", "type=text/plain", "--json"], env);
  assert.equal(text.code, 0, text.stderr);
  const result = JSON.parse(text.stdout);
  assert.deepEqual([result.json, result.body.length], [undefined, 30000]);
  // An MCP client gets an error it can read, and the server goes on.
  const { client } = await mcpClient([pack], { env });
  try {
    const call = await client.callTool({ name: "notes_deep", arguments: { depth: "400000" } });
    assert.equal(call.isError, true);
    const next = await client.callTool({ name: "notes_echo", arguments: {} });
    assert.equal((next.structuredContent as { status: number }).status, 200);
  } finally {
    await client.close();
  }
});
