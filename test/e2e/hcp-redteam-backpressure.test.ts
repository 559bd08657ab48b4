// Red team: a client of `hcp serve --mcp` (stdio) or `hcp exec` that sends calls and never reads its answers, trying to
// make hcp hold every answer in memory (300 calls printing 1 MB each made it hold ~1 GB), to make it read requests
// without bound, or to keep it (and its children) alive forever at shutdown. The program the pack runs logs each real
// run; hcp's memory is read from /proc/<pid>/status.

import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { alive, eventually } from "../runtime/support.js";
import { HCP, tempDir } from "../transports/support.js";
import { isolatedEnv } from "./hardening.js";
import { processesWithHome, runsIn, runsPack } from "./runs-pack.js";
import { trustBeforeRunSync } from "./helpers.js";

interface Served {
  child: ChildProcessWithoutNullStreams;
  cwd: string;
  home: string;
  stderr: () => string;
  /** Exit code, or the signal's name. */
  closed: Promise<number | string | null>;
  /** The runs the pack's program logged: [verb, pid]. */
  runs: () => [string, number][];
  rssMiB: () => number;
  write: (text: string | Buffer) => void;
  /** Kills hcp if still there (a hang guard's end), and every process it started that is left. */
  cleanup: () => void;
}

/** Spawns hcp with stdout piped and never read (until the test reads it). */
function spawnHcp(args: string[]): Served {
  const cwd = tempDir("hcp-bp-cwd-");
  const env = isolatedEnv();
  trustBeforeRunSync(HCP, args, { cwd, env });
  const child = spawn(process.execPath, [HCP, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  child.stdin.on("error", () => {});
  const closed = new Promise<number | string | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
  const runs = () => runsIn(cwd);
  const rssMiB = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) / 1024;
  const cleanup = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    for (const [, pid] of runs()) if (alive(pid)) process.kill(pid, "SIGKILL");
  };
  return { child, cwd, home: env["HOME"]!, stderr: () => err, closed, runs, rssMiB, write: (t) => void child.stdin.write(t), cleanup };
}

/** Processes hcp started (and their descendants) still alive. */
const leftOf = (s: Served) => processesWithHome(s.home, s.child.pid!);

const mcpInit = (s: Served) => {
  s.write(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }) + "\n");
  s.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
};
const mcpCall = (id: string | number, verb: string) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: `bp_${verb}`, arguments: {} } }) + "\n";
const execCall = (id: string | number, verb: string) => JSON.stringify({ id, pack: "bp", verb, args: {} }) + "\n";

/** The hang guard of every wait: far above what each takes on a busy machine. */
const GUARD_MS = 60_000;

/**
 * Starts the `nap` call and waits for it to run, then sends 300 calls of `mb` and waits until hcp has made answers
 * past its bound and stopped reading: blank lines (which hcp would skip) pile up in the test's own pipe buffer.
 */
async function flood(s: Served, call: (id: string | number, verb: string) => string): Promise<void> {
  s.write(call("nap", "nap"));
  assert.ok(await eventually(() => s.runs().some(([v]) => v === "nap"), GUARD_MS), `the nap call runs: ${s.stderr()}`);
  for (let i = 0; i < 300; i++) s.write(call(i, "mb"));
  assert.ok(await eventually(() => s.runs().length > 10, GUARD_MS), `calls run: ${s.stderr()}`);
  const blank = Buffer.alloc(1 << 20, 0x20);
  blank[blank.length - 1] = 0x0a;
  const end = Date.now() + GUARD_MS;
  // hcp reads on (at most 1 MiB ahead) until it stops: then what the test writes stays in its own buffer.
  while (s.child.stdin.writableLength < 4 << 20) {
    assert.ok(Date.now() < end, `hcp never stopped reading: it took every blank line sent (${s.runs().length} runs)`);
    s.write(blank);
    await sleep(100);
  }
}

/** After a flood: hcp holds far less than the ~1 GB the 300 answers would weigh, and most calls never ran. */
async function assertBounded(s: Served): Promise<void> {
  const before = s.runs().length;
  // Whatever was still running when hcp stopped reading finishes; nothing new starts (limits.concurrency is 8).
  await sleep(1000);
  const rss = s.rssMiB();
  assert.ok(rss < 400, `hcp holds ${rss.toFixed(0)} MiB of memory, bounded below 400 MiB`);
  const ran = s.runs().filter(([v]) => v === "mb").length;
  assert.ok(ran < 100, `only ${ran} of 300 calls ran while nobody read the answers (${before} runs when hcp stopped reading)`);
}

/** Once hcp has exited: no process it started is left. */
async function assertNoneLeft(s: Served): Promise<void> {
  const nap = s.runs().find(([v]) => v === "nap")![1];
  assert.ok(await eventually(() => !alive(nap), 10_000), "the running call's child outlived hcp");
  assert.ok(await eventually(() => leftOf(s).length === 0, 10_000), `processes left: ${leftOf(s).join(", ")}`);
}

for (const [name, args, call, init] of [
  ["hcp serve --mcp", (root: string) => ["serve", "--mcp", root], mcpCall, mcpInit],
  ["hcp exec", (root: string) => ["exec", root, "--concurrency", "1024"], execCall, () => {}],
] as const) {
  test(`${name}: a client that sends 300 calls of 1 MB answers and never reads them: hcp stops reading and holds bounded memory; SIGTERM still kills the running child and exits`, async () => {
    const s = spawnHcp(args(runsPack()));
    const guard = setTimeout(() => s.cleanup(), 4 * GUARD_MS);
    try {
      init(s);
      await flood(s, call);
      await assertBounded(s);
      s.child.kill("SIGTERM");
      // The client still reads nothing: hcp gives up on the answers it cannot deliver and exits.
      assert.equal(await s.closed, 143, s.stderr());
      assert.match(s.stderr(), /the client took none of the last \d+ characters of answers for 5 s; exiting without them/);
      await assertNoneLeft(s);
    } finally {
      clearTimeout(guard);
      s.cleanup();
    }
  });

  test(`${name}: a client that sends 300 calls, closes stdin and never reads: hcp cancels what is in flight, kills the running child and exits`, async () => {
    const s = spawnHcp(args(runsPack()));
    const guard = setTimeout(() => s.cleanup(), 4 * GUARD_MS);
    try {
      init(s);
      s.write(call("nap", "nap"));
      assert.ok(await eventually(() => s.runs().some(([v]) => v === "nap"), GUARD_MS), `the nap call runs: ${s.stderr()}`);
      for (let i = 0; i < 300; i++) s.write(call(i, "mb"));
      s.child.stdin.end();
      assert.equal(await s.closed, 0, s.stderr());
      const ran = s.runs().filter(([v]) => v === "mb").length;
      assert.ok(ran < 100, `only ${ran} of 300 calls ran while nobody read the answers`);
      await assertNoneLeft(s);
    } finally {
      clearTimeout(guard);
      s.cleanup();
    }
  });

  test(`${name}: a client that reads late gets every answer: hcp stops while 120 MB of answers wait, and goes on once they are taken`, async () => {
    const s = spawnHcp(args(runsPack()));
    const guard = setTimeout(() => s.cleanup(), 4 * GUARD_MS);
    try {
      init(s);
      for (let i = 0; i < 60; i++) s.write(call(i, "mb"));
      assert.ok(await eventually(() => s.runs().length > 8, GUARD_MS), `calls run: ${s.stderr()}`);
      // Held back: far fewer than 60 ran while nothing was read (16 MiB of answers wait at most, and those of the calls running).
      await sleep(2000);
      assert.ok(s.runs().length < 60, `${s.runs().length} of 60 calls ran while nothing was read`);
      const ids = new Set<unknown>();
      let rest = "";
      s.child.stdout.setEncoding("utf8").on("data", (c: string) => {
        const lines = (rest + c).split("\n");
        rest = lines.pop()!;
        for (const l of lines) {
          const m = JSON.parse(l) as { id: unknown; ok?: boolean; result?: { stdout?: string; structuredContent?: { stdout: string } } };
          const stdout = m.result?.stdout ?? m.result?.structuredContent?.stdout;
          if (stdout !== undefined) assert.equal(stdout.length, 1 << 20, `call ${String(m.id)} got its whole output`);
          ids.add(m.id);
        }
      });
      assert.ok(await eventually(() => [...Array(60).keys()].every((i) => ids.has(i)), 4 * GUARD_MS), `answered: ${ids.size}`);
      assert.equal(s.runs().length, 60);
      s.child.stdin.end();
      assert.equal(await s.closed, 0, s.stderr());
    } finally {
      clearTimeout(guard);
      s.cleanup();
    }
  });
}

test("hcp exec: requests taken in and unanswered are bounded (64 MiB): 100 requests of 4 MiB behind a busy slot at --concurrency 1024 are not all held; SIGTERM answers those taken in", async () => {
  const s = spawnHcp(["exec", runsPack({ concurrency: 1 }), "--concurrency", "1024"]);
  const guard = setTimeout(() => s.cleanup(), 4 * GUARD_MS);
  try {
    s.write(execCall("nap", "nap"));
    assert.ok(await eventually(() => s.runs().some(([v]) => v === "nap"), GUARD_MS), `the nap call runs: ${s.stderr()}`);
    const big = Buffer.from(JSON.stringify({ id: "big", pack: "bp", verb: "mb", args: {}, stdin: "y".repeat(4 << 20) }) + "\n");
    for (let i = 0; i < 100; i++) s.write(big);
    // hcp takes requests until they weigh 64 MiB; the rest stays with the test (400 MiB were sent).
    let last = -1;
    const end = Date.now() + GUARD_MS;
    while (s.child.stdin.writableLength !== last) {
      assert.ok(Date.now() < end, "hcp never stopped reading");
      last = s.child.stdin.writableLength;
      await sleep(1000);
    }
    const rss = s.rssMiB();
    assert.ok(rss < 400, `hcp holds ${rss.toFixed(0)} MiB with 400 MiB of requests sent, bounded below 400 MiB`);
    assert.ok(s.child.stdin.writableLength > 200 << 20, `hcp took ${400 - s.child.stdin.writableLength / (1 << 20)} MiB of requests`);
    let out = "";
    s.child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    s.child.kill("SIGTERM");
    assert.equal(await s.closed, 143, s.stderr());
    const answers = out
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { id: string; ok: boolean; error?: { code: string } });
    assert.ok(answers.some((a) => a.id === "nap" && a.error?.code === "cancelled"), out.slice(0, 400));
    assert.ok(answers.every((a) => a.error?.code === "cancelled"), "every request taken in is answered cancelled");
    await assertNoneLeft(s);
  } finally {
    clearTimeout(guard);
    s.cleanup();
  }
});
