// The programs never die with work in flight: a closed stdout (EPIPE), an oversized input line, SIGTERM or SIGINT end
// `hcp exec`, `hcp serve --mcp`, `hcp run` and `rungrad` cleanly: every child's group killed, what is in flight
// answered, a non-zero exit code, no stack trace.

import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO, RUNGRAD } from "./helpers.js";
import { HCP, PROBE_PACK, tempDir } from "../transports/support.js";
import { alive, eventually } from "../runtime/support.js";

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

/** Spawns node PROGRAM args in cwd with an isolated environment; stdin stays open until the test ends it. */
function start(program: string, args: string[], cwd: string): Spawned {
  const child = spawn(process.execPath, [program, ...args], { cwd, env: isolated(cwd), stdio: ["pipe", "pipe", "pipe"] });
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
