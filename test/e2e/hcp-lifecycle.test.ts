// The programs never die with work in flight: a closed stdout (EPIPE), an oversized input line, SIGTERM, SIGINT or an
// internal error (a fault hcp did not foresee) end `hcp exec`, `hcp serve --mcp`, `hcp run` and `rungrad` cleanly:
// every child's group killed, what is in flight answered, a non-zero exit code, no stack trace.

import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO, RUNGRAD, trustBeforeRunSync } from "./helpers.js";
import { isolatedEnv } from "./hardening.js";
import { HCP, PROBE_PACK, mcpClient, tempDir } from "../transports/support.js";
import { alive, eventually } from "../runtime/support.js";
import { marks, peakOverlap, witnessPack } from "./witness-pack.js";
import { FAULTS, assertFaultReported, faultWhenRunning } from "./fault.js";

/** An environment that keeps hcp away from the real user's state. */
function isolated(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: dir, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir, HCP_CREDENTIALS: join(dir, "credentials.json"), HCP_AUDIT: "none" };
}

interface Spawned {
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stdout and stderr so far. */
  out: () => string;
  err: () => string;
  /** The exit code (or signal name) once the process has closed. */
  closed: Promise<number | string | null>;
}

/** Spawns node PROGRAM args in cwd with an isolated environment (and `extraEnv`); stdin stays open until the test ends it. */
function start(program: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Spawned {
  const env = { ...isolated(cwd), ...extraEnv };
  trustBeforeRunSync(program, args, { cwd, env });
  const child = spawn(process.execPath, [program, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  child.stdin.on("error", () => {});
  const closed = new Promise<number | string | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
  // A hang guard far above any expected time: a stuck program fails the test instead of hanging the suite.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  void closed.then(() => clearTimeout(guard));
  return { child, out: () => out, err: () => err, closed };
}

const request = (id: number | string, verb: string, args: object = {}) => JSON.stringify({ id, pack: "hcp-probe", verb, args }) + "\n";
const responses = (text: string) => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { id: unknown; ok: boolean; error?: { code: string } });
const pidIn = (dir: string, name: string) => Number(readFileSync(join(dir, name), "utf8"));
const noStackTrace = (stderr: string) => assert.doesNotMatch(stderr, /\n\s+at |node:internal|Unhandled/, stderr);

/** Waits for the sleeper verb's child and grandchild to be running in cwd; returns their pids. */
async function sleeperPids(cwd: string): Promise<number[]> {
  assert.ok(await eventually(() => existsSync(join(cwd, "child.pid")) && existsSync(join(cwd, "grandchild.pid")), 20_000), "the sleeper started");
  return [pidIn(cwd, "child.pid"), pidIn(cwd, "grandchild.pid")];
}

async function allGone(pids: number[]): Promise<void> {
  assert.ok(await eventually(() => pids.every((p) => !alive(p)), 10_000), `still running: ${pids.filter(alive).join(", ")}`);
}

for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
  test(`hcp exec: ${signal} while stdin stays open kills the children, answers in-flight requests cancelled, exits ${code}`, async () => {
    const cwd = tempDir("hcp-exec-signal-");
    const p = start(HCP, ["exec", PROBE_PACK], cwd);
    p.child.stdin.write(request("sleeping", "sleeper"));
    const pids = await sleeperPids(cwd);
    p.child.kill(signal);
    assert.equal(await p.closed, code, p.err());
    const answers = responses(p.out());
    assert.deepEqual(answers.map((a) => [a.id, a.ok, a.error?.code]), [["sleeping", false, "cancelled"]]);
    noStackTrace(p.err());
    await allGone(pids);
  });
}

test("hcp exec: a closed stdout (EPIPE) kills every child group and exits 141 without a stack trace", async () => {
  const cwd = tempDir("hcp-exec-epipe-");
  const p = start(HCP, ["exec", PROBE_PACK], cwd);
  p.child.stdin.write(request("sleeping", "sleeper"));
  const pids = await sleeperPids(cwd);
  // The reader goes away; the next answer meets a closed pipe.
  p.child.stdout.destroy();
  p.child.stdin.write(request("quick", "quick"));
  assert.equal(await p.closed, 141, p.err());
  noStackTrace(p.err());
  await allGone(pids);
});

test("hcp exec: a request line over 16 MiB is answered request_too_large and skipped, without being held in memory", async () => {
  const cwd = tempDir("hcp-exec-large-");
  const p = start(HCP, ["exec", PROBE_PACK], cwd);
  const filler = Buffer.alloc(1024 * 1024, 0x61);
  const first = Buffer.alloc(1024 * 1024, 0x61);
  first.write('{"id": 7, "pack": "hcp-probe", "verb": "echo", "args": {"message": "');
  const write = (chunk: Buffer | string) => new Promise<void>((resolve) => (p.child.stdin.write(chunk) ? resolve() : p.child.stdin.once("drain", () => resolve())));
  // 256 MiB on one line, then a good request.
  for (let i = 0; i < 256; i++) await write(i === 0 ? first : filler);
  await write('"}}\n' + request("after", "quick"));
  assert.ok(await eventually(() => responses(p.out()).length === 2, 30_000), p.out().slice(0, 500));
  const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.child.pid}/status`, "utf8"))![1];
  p.child.stdin.end();
  assert.equal(await p.closed, 0, p.err());
  const [large, after] = responses(p.out());
  assert.deepEqual([large!.id, large!.ok, large!.error?.code], [null, false, "request_too_large"]);
  assert.deepEqual([after!.id, after!.ok], ["after", true]);
  assert.ok(Number(peak) < 200 * 1024, `peak memory ${peak} kB: the line was buffered`);
});

test("hcp run: a closed stdout exits 141 without a stack trace", async () => {
  const cwd = tempDir("hcp-run-epipe-");
  const p = start(HCP, ["run", PROBE_PACK, "quick"], cwd);
  p.child.stdout.destroy();
  assert.equal(await p.closed, 141, p.err());
  noStackTrace(p.err());
});

test("rungrad: a closed stdout (`rungrad agentmeta FILE | head -c 10`) exits 141 without a stack trace", async () => {
  for (const args of [["agentmeta", join(REPO, "examples/manifests/rgref.json")], ["--help"], ["skill", join(REPO, "examples/manifests/rgref.json"), "--dry-run"]]) {
    const p = start(RUNGRAD, args, tempDir("rungrad-epipe-"));
    p.child.stdout.destroy();
    assert.equal(await p.closed, 141, `${args.join(" ")}: ${p.err()}`);
    noStackTrace(p.err());
  }
});

test("an output that cannot be written (stdout on /dev/full: no space left on device) is told on stderr and exits 2, not 141 without a word: hcp run, hcp exec, hcp serve --mcp, rungrad", () => {
  const cwd = tempDir("hcp-full-output-");
  const full = openSync("/dev/full", "w");
  try {
    for (const [program, args, input] of [
      [HCP, ["run", PROBE_PACK, "quick"], ""],
      [HCP, ["exec", PROBE_PACK], request(1, "quick")],
      [HCP, ["serve", "--mcp", PROBE_PACK], INIT],
      [RUNGRAD, ["agentmeta", join(REPO, "examples/manifests/rgref.json")], ""],
    ] as const) {
      const env = isolated(cwd);
      trustBeforeRunSync(program, [...args], { cwd, env });
      const r = spawnSync(process.execPath, [program, ...args], { cwd, env, input, stdio: ["pipe", full, "pipe"], encoding: "utf8", timeout: 60_000 });
      const what = `${program === HCP ? "hcp" : "rungrad"} ${args[0]}`;
      assert.equal(r.status, 2, `${what}: ${r.stderr}`);
      assert.match(r.stderr, /^Error: cannot write to standard output: no space left on device$/m, what);
      noStackTrace(r.stderr);
    }
  } finally {
    closeSync(full);
  }
});

// --- hcp serve --mcp: raw JSON-RPC on the server's stdin and stdout ---

type RpcAnswer = { id?: unknown; result?: Record<string, unknown> & { structuredContent?: Record<string, unknown> & { error?: { code: string } } }; error?: { code: number; message: string } };

const rpc = (id: number, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined && { params }) }) + "\n";
const INIT =
  rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }) +
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) +
  "\n";
const callTool = (id: number, name: string, args: object = {}) => rpc(id, "tools/call", { name, arguments: args });
const answers = (text: string) => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as RpcAnswer);
/** The answers by their ids; notifications (the server's log messages: it runs in its home folder) have none. */
const byId = (text: string) => new Map(answers(text).flatMap((a) => (a.id === undefined ? [] : [[a.id, a] as const])));

test("hcp serve --mcp: at the end of stdin, calls in flight run to their end and every one is answered", async () => {
  const cwd = tempDir("hcp-mcp-eof-");
  const p = start(HCP, ["serve", "--mcp", PROBE_PACK], cwd);
  // Ended at once: the SDK is still loading; both calls still run to completion, neither is cancelled.
  p.child.stdin.end(INIT + callTool(2, "hcp-probe_slow") + callTool(3, "hcp-probe_quick"));
  assert.equal(await p.closed, 0, p.err());
  const got = byId(p.out());
  assert.deepEqual([...got.keys()].sort(), [1, 2, 3]);
  assert.equal(got.get(2)!.result!.structuredContent!["timed_out"], true, "ran until its own timeout, not cancelled");
  assert.equal(got.get(3)!.result!.structuredContent!["stdout"], "ok\n");
  noStackTrace(p.err());
});

for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
  test(`hcp serve --mcp: ${signal} cancels the calls in flight, kills their groups, answers each, exits ${code}`, async () => {
    const cwd = tempDir("hcp-mcp-signal-");
    const p = start(HCP, ["serve", "--mcp", PROBE_PACK], cwd);
    p.child.stdin.write(INIT + callTool(2, "hcp-probe_sleeper"));
    const pids = await sleeperPids(cwd);
    p.child.kill(signal);
    assert.equal(await p.closed, code, p.err());
    const got = byId(p.out());
    assert.equal(got.get(2)?.result?.isError, true, p.out());
    assert.equal(got.get(2)!.result!.structuredContent!.error!.code, "cancelled");
    noStackTrace(p.err());
    await allGone(pids);
  });
}

for (const fault of FAULTS) {
  test(`an unforeseen fault (${fault}) in hcp serve --mcp, hcp exec or hcp run while a verb runs: what is in flight is answered cancelled, the run's group killed, exit 2, one line on stderr and no stack trace`, async () => {
    const cwds = ["mcp", "exec", "run"].map((name) => tempDir(`hcp-fault-${name}-`));
    const mcp = start(HCP, ["serve", "--mcp", PROBE_PACK], cwds[0]!, faultWhenRunning(fault));
    const exec = start(HCP, ["exec", PROBE_PACK], cwds[1]!, faultWhenRunning(fault));
    const run = start(HCP, ["run", PROBE_PACK, "sleeper"], cwds[2]!, faultWhenRunning(fault));
    mcp.child.stdin.write(INIT + callTool(2, "hcp-probe_sleeper"));
    exec.child.stdin.write(request("sleeping", "sleeper"));
    const pids = (await Promise.all(cwds.map(sleeperPids))).flat();

    assert.equal(await mcp.closed, 2, mcp.err());
    const got = byId(mcp.out());
    assert.equal(got.get(2)?.result?.isError, true, mcp.out());
    assert.equal(got.get(2)!.result!.structuredContent!.error!.code, "cancelled");
    assertFaultReported(mcp.err());

    assert.equal(await exec.closed, 2, exec.err());
    assert.deepEqual(responses(exec.out()).map((a) => [a.id, a.ok, a.error?.code]), [["sleeping", false, "cancelled"]]);
    assertFaultReported(exec.err());

    assert.equal(await run.closed, 2, run.err());
    assertFaultReported(run.err());
    await allGone(pids);
  });
}

test("hcp serve --mcp: a closed stdout kills every child group and exits 141 without a stack trace", async () => {
  const cwd = tempDir("hcp-mcp-epipe-");
  const p = start(HCP, ["serve", "--mcp", PROBE_PACK], cwd);
  p.child.stdin.write(INIT + callTool(2, "hcp-probe_sleeper"));
  const pids = await sleeperPids(cwd);
  p.child.stdout.destroy();
  p.child.stdin.write(rpc(3, "ping"));
  assert.equal(await p.closed, 141, p.err());
  noStackTrace(p.err());
  await allGone(pids);
});

test("hcp serve --mcp: a frame over 10 MiB, a wrong jsonrpc, a batch and array params are answered with errors, and the server goes on", async () => {
  const cwd = tempDir("hcp-mcp-frames-");
  const p = start(HCP, ["serve", "--mcp", PROBE_PACK], cwd);
  const huge = JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "hcp-probe_echo", arguments: { message: "x".repeat(11 * 1024 * 1024) } }, id: 41 });
  p.child.stdin.write(INIT);
  p.child.stdin.write(huge + "\n");
  p.child.stdin.write(JSON.stringify({ jsonrpc: "1.0", id: 42, method: "ping" }) + "\n");
  p.child.stdin.write(JSON.stringify([{ jsonrpc: "2.0", id: 43, method: "ping" }, { jsonrpc: "2.0", id: 44, method: "ping" }]) + "\n");
  p.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 45, method: "tools/call", params: ["hcp-probe_quick"] }) + "\n");
  p.child.stdin.write("this is not json\n");
  p.child.stdin.end(callTool(46, "hcp-probe_quick"));
  assert.equal(await p.closed, 0, p.err());
  const all = answers(p.out());
  const got = byId(p.out());
  for (const id of [41, 42, 43, 44, 45]) assert.equal(got.get(id)?.error?.code, -32600, `request ${id}: ${p.out().slice(0, 2000)}`);
  assert.match(got.get(41)!.error!.message, /over the 10485760 byte limit/);
  assert.ok(all.some((a) => a.id === undefined && a.error?.code === -32700), "a parse error is answered too");
  assert.equal(got.get(46)!.result!.structuredContent!["stdout"], "ok\n", "the server went on");
  noStackTrace(p.err());
});

test("hcp serve --mcp: 400 concurrent calls never run more children at once than limits.concurrency (default 8)", { timeout: 300_000 }, async () => {
  const root = tempDir("hcp-mcp-bound-");
  const logs = { bounded: join(root, "bounded.log"), default: join(root, "default.log") };
  witnessPack(root, "bounded", logs.bounded, 3);
  witnessPack(root, "default", logs.default);
  const { client } = await mcpClient([root], { env: isolatedEnv(), cwd: root });
  try {
    // 400 calls, 50 times the default bound: as telling as 1,000, in less of CI's time (each call spawns a process).
    const calls = Array.from({ length: 400 }, (_, i) => client.callTool({ name: i % 2 === 0 ? "bounded_work" : "default_work", arguments: {} }, undefined, { timeout: 240_000 }));
    const results = await Promise.all(calls);
    assert.equal(results.filter((r) => r.isError !== true).length, 400);
  } finally {
    await client.close();
  }
  assert.deepEqual([marks(logs.bounded), marks(logs.default)], [400, 400], "each of the 200 calls per pack ran (S and E)");
  assert.ok(peakOverlap(logs.bounded) <= 3, `bounded pack: ${peakOverlap(logs.bounded)} at once`);
  assert.ok(peakOverlap(logs.default) <= 8, `default: ${peakOverlap(logs.default)} at once`);
  assert.ok(peakOverlap(logs.default) > 1, "calls do run concurrently");
});

test("hcp exec: the same bound, limits.concurrency children at once, whatever --concurrency reads ahead", { timeout: 300_000 }, async () => {
  const root = tempDir("hcp-exec-bound-");
  const log = join(root, "bounded.log");
  witnessPack(root, "bounded", log, 3);
  const p = start(HCP, ["exec", root, "--concurrency", "64"], root);
  p.child.stdin.end(Array.from({ length: 200 }, (_, i) => JSON.stringify({ id: i, pack: "bounded", verb: "work", args: {} }) + "\n").join(""));
  assert.equal(await p.closed, 0, p.err());
  assert.equal(responses(p.out()).filter((r) => r.ok).length, 200);
  assert.equal(marks(log), 400);
  assert.ok(peakOverlap(log) <= 3, `${peakOverlap(log)} at once`);
  assert.ok(peakOverlap(log) > 1, "requests do run concurrently");
});
