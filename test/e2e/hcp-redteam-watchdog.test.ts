// Red team: hcp killed by a signal it cannot catch (SIGKILL: the OOM killer, a supervisor's hard kill, or the run's
// own program killing its parent). hcp's watchdog, a process of its own that outlives it, kills what the runs left:
// the run's program and a setsid escapee it started, over hcp run, hcp exec and hcp serve --mcp. It kills nothing
// else, and it does not outlive hcp.

// What /proc alone shows: where hcp could make cgroups, this file runs where it cannot (test/without-cgroups.ts).
import "../without-cgroups.js";
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, cpSync, existsSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO, fixture, trustBeforeRunSync } from "./helpers.js";
import { isolatedEnv } from "./hardening.js";
import { isolatedEnv as openapiEnv, openapiPack } from "./openapi-support.js";
import { alive, eventually, idleInEventLoop, watchdogOf } from "../runtime/support.js";
import { HCP, tempDir } from "../transports/support.js";

/**
 * The run's program: writes its pid, leaves an escapee in a session of its own (its pid written too), kills hcp (its
 * parent) when told to, then sleeps. Pid files are written whole (a rename), in the working directory. `kill-parent`
 * kills hcp 0.3 s after its start, once hcp has told the watchdog its pid; `kill-at-once` as its first step, before hcp
 * can have (the watchdog then finds it by the spawn mark hcp wrote before spawning it: watchdog-unregistered.ts).
 */
const SCRIPT = `#!/bin/sh
if [ "$1" = kill-at-once ]; then
  setsid sh -c 'echo $$ > escapee.tmp && mv escapee.tmp escapee.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &
  kill -KILL $PPID
  echo $$ > run.tmp && mv run.tmp run.pid
  exec sleep 300
fi
setsid sh -c 'echo $$ > escapee.tmp && mv escapee.tmp escapee.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &
echo $$ > run.tmp && mv run.tmp run.pid
while [ ! -f escapee.pid ]; do sleep 0.05; done
if [ "$1" = kill-parent ]; then sleep 0.3; kill -KILL $PPID; fi
if [ "$1" = kill-watchdog ]; then
  first=$(pgrep -f "watchdog-program.js.* $PPID$")
  kill -KILL $first
  i=0
  while [ $i -lt 200 ]; do
    now=$(pgrep -f "watchdog-program.js.* $PPID$")
    [ -n "$now" ] && [ "$now" != "$first" ] && break
    sleep 0.05
    i=$((i + 1))
  done
  kill -KILL $PPID
fi
exec sleep 300
`;

function guardPack(): string {
  const root = tempDir("hcp-pack-");
  const bin = join(root, "stay.sh");
  writeFileSync(bin, SCRIPT);
  chmodSync(bin, 0o755);
  const verbs = {
    stay: { description: "Leave an escapee and sleep.", cli: ["stay", "stay"], policy: "read" },
    "kill-parent": { description: "Leave an escapee, kill hcp, sleep.", cli: ["stay", "kill-parent"], policy: "read" },
    "kill-at-once": { description: "Leave an escapee and kill hcp at once, then sleep.", cli: ["stay", "kill-at-once"], policy: "read" },
    quick: { description: "Print ok.", cli: ["stay", "quick"], policy: "read" },
    pause: { description: "Print ok a second later.", cli: ["stay", "pause"], policy: "read" },
    forks: { description: "Leave a daemon forking all the time.", cli: ["stay", "forks"], policy: "read" },
    "kill-watchdog": { description: "Leave an escapee, kill the watchdog, then hcp, sleep.", cli: ["stay", "kill-watchdog"], policy: "read" },
    linger: { description: "Leave a process that ignores SIGTERM, print ok and exit.", cli: ["stay", "linger"], policy: "read" },
    flee: { description: "Leave a setsid escapee that ignores SIGTERM, print ok and exit.", cli: ["stay", "flee"], policy: "read" },
    "flee-late": { description: "Leave a process that ignores SIGTERM and makes its session later, print ok and exit.", cli: ["stay", "flee-late"], policy: "read" },
  };
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "guard", kind: "wrap", cliBin: "stay", wrap: { bin: "./stay.sh" }, verbs }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "guard", verbs: { stay: "read", "kill-parent": "read", "kill-at-once": "read", quick: "read", pause: "read", forks: "read", "kill-watchdog": "read", linger: "read", flee: "read", "flee-late": "read" } }));
  writeFileSync(join(root, "HARNESS.md"), "---\nname: guard\ndescription: Test pack.\n---\n\nTest pack.\n");
  return root;
}

const PACK = guardPack();
// `quick` and `pause` (a second long) are the script cut short: they print ok and exit, leaving nothing. `forks`: the
// run's program (its pid in run.pid) leaves a daemon in a session of its own (its pid in k) that starts a process every
// few ms; one that finds the daemon gone writes `<pid>.pid` and stays, all in the working directory
// (test/fixtures/bin/fork-daemon.py). `linger` writes its pid, leaves a process in its group that ignores SIGTERM (its pid
// in linger.pid), prints ok and exits. `flee` leaves one that does in a session of its own (setsid, its pid in
// escapee.pid), stays 0.3 s (hcp's watch sees it while its parent lives), prints ok and exits. `flee-late` leaves one that
// stays in the run's session for 0.5 s (hcp's watch sees it there), then makes its own (setsid, keeping its pid) and
// starts nothing there (so no process new to the watch shows the session); the program stays 1 s more, so that hcp's
// watch (every 25 ms) has read the session before the test kills hcp, on a loaded machine too.
const LINGER = `if [ "$1" = linger ]; then
  echo $$ > run.tmp && mv run.tmp run.pid
  sh -c 'trap "" TERM; echo $$ > linger.tmp && mv linger.tmp linger.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &
  while [ ! -f linger.pid ]; do sleep 0.05; done
  echo ok; exit 0
fi
if [ "$1" = flee ]; then
  echo $$ > run.tmp && mv run.tmp run.pid
  setsid sh -c 'trap "" TERM; echo $$ > escapee.tmp && mv escapee.tmp escapee.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &
  while [ ! -f escapee.pid ]; do sleep 0.05; done
  sleep 0.3
  echo ok; exit 0
fi
if [ "$1" = flee-late ]; then
  echo $$ > run.tmp && mv run.tmp run.pid
  sh -c 'trap "" TERM; echo $$ > escapee.tmp && mv escapee.tmp escapee.pid; sleep 0.5; exec setsid sleep 300' </dev/null >/dev/null 2>&1 &
  while [ ! -f escapee.pid ]; do sleep 0.05; done
  escapee=$(cat escapee.pid)
  while [ "$(cut -d ' ' -f 6 /proc/$escapee/stat)" != "$escapee" ]; do sleep 0.05; done
  sleep 1
  echo ok; exit 0
fi
`;
// (A replacement function: in a replacement string, `$$` would be read as one `$`.)
// The script runs again without the run's mark (PATH alone), which would find every process it leaves by itself
// (test/e2e/hcp-redteam-run-mark.test.ts): here only what /proc shows, what hcp told the watchdog and the spawn mark tie
// them to the run. Not `kill-at-once`, whose first step must be the kill.
const UNMARKED = `if [ -n "$HCP_RUN_ID" ] && [ "$1" != kill-at-once ]; then exec env -i PATH="$PATH" "$0" "$@"; fi\n`;
writeFileSync(join(PACK, "stay.sh"), SCRIPT.replace("#!/bin/sh\n", () => `#!/bin/sh\n${UNMARKED}[ "$1" = forks ] && exec '${fixture("bin/fork-daemon.py")}' stay .\n[ "$1" = pause ] && sleep 1\n${LINGER}if [ "$1" != stay ] && [ "$1" != kill-parent ] && [ "$1" != kill-at-once ] && [ "$1" != kill-watchdog ]; then echo ok; exit 0; fi\n`));

/**
 * Waits until hcp's main thread is back in its event loop after the run's program wrote its pids: the turn that
 * spawned the run, and told the watchdog its pid right after, is over. These tests are of what the watchdog does once
 * it knows a run by its pid; a kill before is the spawn mark's case (the `kill-at-once` tests).
 */
const registered = (hcp: number): Promise<void> => idleInEventLoop(hcp);

/** The pids in `cwd` that the run's program wrote: its own and its escapee's. */
async function runPids(cwd: string, stderr: () => string): Promise<number[]> {
  const files = ["run.pid", "escapee.pid"].map((f) => join(cwd, f));
  assert.ok(await eventually(() => files.every((f) => existsSync(f)), 30_000), `the verb started: ${stderr()}`);
  return files.map((f) => Number(readFileSync(f, "utf8")));
}

/** Kills whatever a test started and may have left: the run's processes (their pid files in `cwd`) and `others`. */
function cleanUp(cwd: string, ...others: (number | undefined)[]): void {
  const files = ["run.pid", "escapee.pid"].map((f) => join(cwd, f)).filter((f) => existsSync(f));
  for (const pid of [...files.map((f) => Number(readFileSync(f, "utf8"))), ...others]) {
    if (pid === undefined) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** A sleeper of the test's, in a session of its own like a run's child: the watchdog must never touch it. */
function bystander(): ChildProcess {
  return spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
}

/**
 * Asserts the run's processes (these pids, or those a function finds still running) are gone, then the watchdog (when
 * it was seen: a run that kills hcp at once may leave no time to look), and that the bystander is not.
 */
async function assertSwept(pids: number[] | (() => number[]), watchdog: number | undefined, stranger: ChildProcess): Promise<void> {
  const left = typeof pids === "function" ? pids : () => pids.filter(alive);
  assert.ok(await eventually(() => left().length === 0, 15_000), `still running after hcp was killed: ${left().join(", ")}`);
  if (watchdog !== undefined) assert.ok(await eventually(() => !alive(watchdog), 15_000), "the watchdog exited after its work");
  assert.ok(alive(stranger.pid!), "a process of no run was not signalled");
}

interface Hcp {
  child: ChildProcess;
  stderr: () => string;
  closed: Promise<number | string | null>;
}

function startHcp(args: string[], cwd: string, input: string): Hcp {
  const env = isolatedEnv();
  trustBeforeRunSync(HCP, args, { cwd, env });
  const child = spawn(process.execPath, [HCP, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  child.stdout!.resume();
  child.stdin!.on("error", () => {});
  // stdin stays open: hcp must not end because its input did.
  child.stdin!.write(input);
  const closed = new Promise<number | string | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
  // A hang guard far above any expected time.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  void closed.then(() => clearTimeout(guard));
  return { child, stderr: () => err, closed };
}

/** One `hcp exec` request line. */
const request = (id: number, verb: string) => JSON.stringify({ id, pack: "guard", verb }) + "\n";

const ways = [
  { name: "hcp run", args: (verb: string) => ["run", PACK, verb], input: () => "" },
  { name: "hcp exec", args: () => ["exec", PACK], input: (verb: string) => request(1, verb) },
];

for (const way of ways) {
  test(`${way.name}: SIGKILL of hcp; the run's program and its setsid escapee are killed by the watchdog, nothing else`, async () => {
    const cwd = tempDir("hcp-watchdog-");
    const stranger = bystander();
    const hcp = startHcp(way.args("stay"), cwd, way.input("stay"));
    let watchdog: number | undefined;
    try {
      const pids = await runPids(cwd, hcp.stderr);
      watchdog = watchdogOf(hcp.child.pid!);
      assert.ok(watchdog !== undefined, "hcp started its watchdog before the run");
      await registered(hcp.child.pid!);
      hcp.child.kill("SIGKILL");
      assert.equal(await hcp.closed, "SIGKILL");
      await assertSwept(pids, watchdog, stranger);
    } finally {
      cleanUp(cwd, hcp.child.pid, watchdog, stranger.pid);
    }
  });

  test(`${way.name}: the run's own program kills hcp with SIGKILL, then sleeps; the watchdog kills it and its escapee`, async () => {
    const cwd = tempDir("hcp-watchdog-");
    const stranger = bystander();
    const hcp = startHcp(way.args("kill-parent"), cwd, way.input("kill-parent"));
    // The watchdog is started before the run's child: it is there to be found until hcp dies.
    let watchdog: number | undefined;
    void eventually(() => (watchdog ??= watchdogOf(hcp.child.pid!)) !== undefined, 30_000);
    try {
      assert.equal(await hcp.closed, "SIGKILL", hcp.stderr());
      await assertSwept(await runPids(cwd, hcp.stderr), watchdog, stranger);
    } finally {
      cleanUp(cwd, hcp.child.pid, watchdog, stranger.pid);
    }
  });
}

test("a watchdog killed while hcp runs is started again at the next run, told of the runs still going", async () => {
  const cwd = tempDir("hcp-watchdog-");
  const stranger = bystander();
  const hcp = startHcp(["exec", PACK], cwd, request(1, "stay"));
  const started: (number | undefined)[] = [hcp.child.pid, stranger.pid];
  try {
    const pids = await runPids(cwd, hcp.stderr);
    started.push(...pids);
    const first = watchdogOf(hcp.child.pid!);
    assert.ok(first !== undefined, "hcp started its watchdog");
    process.kill(first, "SIGKILL");
    // Reaped by hcp (not only dead): hcp knows it is gone.
    assert.ok(await eventually(() => !existsSync(`/proc/${first}`), 15_000));
    // The next run starts another one, which is told of the first run too.
    hcp.child.stdin!.write(request(2, "pause"));
    let second: number | undefined;
    assert.ok(await eventually(() => (second = watchdogOf(hcp.child.pid!)) !== undefined, 30_000), "a new watchdog was started");
    started.push(second);
    hcp.child.kill("SIGKILL");
    await assertSwept(pids, second, stranger);
  } finally {
    cleanUp(cwd, ...started);
  }
});

test("hcp run: the run's program kills the watchdog, waits up to 10 s for another, then kills hcp; the new watchdog kills it and its escapee", async () => {
  // Replaced only at the next run, the watchdog left a lone run unguarded for as long as it lasted.
  const cwd = tempDir("hcp-watchdog-");
  const stranger = bystander();
  const hcp = startHcp(["run", PACK, "kill-watchdog"], cwd, "");
  const watchdogs = new Set<number>();
  const watching = setInterval(() => {
    const w = watchdogOf(hcp.child.pid!);
    if (w !== undefined) watchdogs.add(w);
  }, 10);
  try {
    assert.equal(await hcp.closed, "SIGKILL", hcp.stderr());
    const pids = await runPids(cwd, hcp.stderr);
    const gone = await eventually(() => pids.every((p) => !alive(p)), 15_000);
    assert.ok(gone, `still running after hcp was killed: ${pids.filter(alive).join(", ")}`);
    assert.ok(await eventually(() => [...watchdogs].every((w) => !alive(w)), 15_000), "the new watchdog exited after its work");
    assert.ok(alive(stranger.pid!), "a process of no run was not signalled");
  } finally {
    clearInterval(watching);
    cleanUp(cwd, hcp.child.pid, stranger.pid, ...watchdogs);
  }
});

/** `hcp serve --mcp` with the SDK's client; its pid, and a call of `verb` under way (never answered). */
async function serve(cwd: string, verb: string): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [HCP, "serve", "--mcp", PACK], cwd, env: isolatedEnv() as Record<string, string>, stderr: "ignore" });
  const client = new Client({ name: "hcp-test", version: "1.0.0" });
  await client.connect(transport);
  // hcp dies with the call in flight: it is never answered.
  client.callTool({ name: `guard_${verb}`, arguments: {} }).catch(() => {});
  return { client, pid: transport.pid! };
}

test("hcp serve --mcp: SIGKILL of hcp with a call running; the run's program and its setsid escapee are killed, nothing else", async () => {
  const cwd = tempDir("hcp-watchdog-");
  const stranger = bystander();
  const { client, pid } = await serve(cwd, "stay");
  let watchdog: number | undefined;
  try {
    const pids = await runPids(cwd, () => "");
    watchdog = watchdogOf(pid);
    assert.ok(watchdog !== undefined, "hcp started its watchdog before the run");
    await registered(pid);
    process.kill(pid, "SIGKILL");
    await assertSwept(pids, watchdog, stranger);
  } finally {
    cleanUp(cwd, pid, watchdog, stranger.pid);
    await client.close();
  }
});

test("hcp serve --mcp: a call's program kills hcp with SIGKILL, then sleeps; the watchdog kills it and its escapee", async () => {
  const cwd = tempDir("hcp-watchdog-");
  const stranger = bystander();
  const { client, pid } = await serve(cwd, "kill-parent");
  let watchdog: number | undefined;
  void eventually(() => (watchdog ??= watchdogOf(pid)) !== undefined, 30_000);
  try {
    assert.ok(await eventually(() => !alive(pid), 30_000), "hcp was killed");
    await assertSwept(await runPids(cwd, () => ""), watchdog, stranger);
  } finally {
    cleanUp(cwd, pid, watchdog, stranger.pid);
    await client.close();
  }
});

/**
 * A sleeper that leads a session of its own and whose parent has exited, as a run's child is once hcp is gone: made
 * by the test as hcp dies, after its run's child, it is also given its id after the spawn mark's cursor. Its pid.
 */
function orphanLeader(): number {
  const out = execFileSync("/bin/sh", ["-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!"], { encoding: "utf8" });
  return Number(out.trim());
}

/** The live processes working in `cwd` but `except` (hcp, dead but perhaps not yet reaped by the test). */
function workingIn(cwd: string, except: number): number[] {
  const real = realpathSync(cwd);
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === except) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) === real) found.push(Number(name));
    } catch {
      // gone meanwhile, or a zombie (no working directory): not running
    }
  }
  return found;
}

// The program kills hcp as its first step, before hcp can have told the watchdog its pid (an idle machine left the
// program and its escapee running in 4 of 10 runs before the spawn mark). Three tries for each way in: each must end
// with both killed, and neither the test's bystander nor a session leader orphaned just after the run's child touched.
const TRIES = 3;
/** Each way in, started on the `kill-at-once` verb: hcp's pid, its stderr, and what to close afterwards. */
const killAtOnce: { name: string; start: (cwd: string) => Promise<{ pid: number; stderr: () => string; close: () => Promise<void> }> }[] = [
  ...ways.map((way) => ({
    name: way.name,
    start: async (cwd: string) => {
      const hcp = startHcp(way.args("kill-at-once"), cwd, way.input("kill-at-once"));
      return { pid: hcp.child.pid!, stderr: hcp.stderr, close: async () => {} };
    },
  })),
  {
    name: "hcp serve --mcp",
    start: async (cwd: string) => {
      const { client, pid } = await serve(cwd, "kill-at-once");
      return { pid, stderr: () => "", close: () => client.close() };
    },
  },
];
for (const way of killAtOnce) {
  test(`${way.name}: the run's program kills hcp at once, before hcp can tell the watchdog its pid; the watchdog finds and kills it and its escapee, nothing else`, async () => {
    for (let round = 0; round < TRIES; round++) {
      const cwd = tempDir("hcp-watchdog-");
      const stranger = bystander();
      const hcp = await way.start(cwd);
      let watchdog: number | undefined;
      void eventually(() => (watchdog ??= watchdogOf(hcp.pid)) !== undefined, 30_000);
      let orphan: number | undefined;
      try {
        assert.ok(await eventually(() => !alive(hcp.pid), 30_000), `try ${round + 1}: hcp was killed`);
        orphan = orphanLeader();
        // What the run left is found by its working directory, not by the pid files: the watchdog, which sees hcp gone
        // at once, can kill the program before it writes its pid, and the escapee before it starts.
        await assertSwept(() => workingIn(cwd, hcp.pid), watchdog, stranger);
        assert.ok(alive(orphan), `try ${round + 1}: a session leader orphaned after the run's child was not signalled`);
      } finally {
        cleanUp(cwd, hcp.pid, watchdog, stranger.pid, orphan, ...workingIn(cwd, hcp.pid));
        await hcp.close();
      }
    }
  });
}

test("hcp exits normally (run, exec) or is killed with no run left (serve): its watchdog exits and signals nothing", async () => {
  const cwd = tempDir("hcp-watchdog-");
  const stranger = bystander();
  const started: (number | undefined)[] = [stranger.pid];
  try {
    for (const [args, input] of [
      [["run", PACK, "pause"], ""],
      [["exec", PACK], request(1, "pause")],
    ] as const) {
      const hcp = startHcp([...args], cwd, input);
      started.push(hcp.child.pid);
      // Found while the run pauses.
      let watchdog: number | undefined;
      assert.ok(await eventually(() => (watchdog = watchdogOf(hcp.child.pid!)) !== undefined, 30_000), `${args[0]}: hcp started its watchdog`);
      started.push(watchdog);
      hcp.child.stdin!.end();
      assert.equal(await hcp.closed, 0, hcp.stderr());
      assert.ok(await eventually(() => !alive(watchdog!), 15_000), `${args[0]}: the watchdog outlived hcp`);
    }
    // A run ended, then hcp killed while idle: the watchdog has nothing registered and kills nothing.
    const { client, pid } = await serve(cwd, "quick");
    started.push(pid);
    try {
      const answer = await client.callTool({ name: "guard_quick", arguments: {} });
      assert.equal((answer.structuredContent as { stdout?: string } | undefined)?.stdout, "ok\n");
      const watchdog = watchdogOf(pid);
      started.push(watchdog);
      assert.ok(watchdog !== undefined, "serve: hcp had started its watchdog");
      process.kill(pid, "SIGKILL");
      assert.ok(await eventually(() => !alive(watchdog), 15_000), "serve: the watchdog exited");
    } finally {
      await client.close();
    }
    assert.ok(alive(stranger.pid!), "a process of no run was not signalled");
  } finally {
    cleanUp(cwd, ...started);
  }
});

/** `hcp serve --mcp` of `packs` with the SDK's client, connected, its SDK loaded (it answered a ping), and no call made. */
async function readyServer(cwd: string, packs: string[], env: NodeJS.ProcessEnv): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [HCP, "serve", "--mcp", ...packs], cwd, env: env as Record<string, string>, stderr: "ignore" });
  const client = new Client({ name: "hcp-test", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  // tools/list is answered before the SDK loads (mcp-link.ts); a ping is the SDK's to answer.
  await client.ping();
  return { client, pid: transport.pid! };
}

test("hcp serve --mcp starts its watchdog once ready for calls, before the first call, which it then guards; a server of openapi packs alone starts none", async () => {
  const cwd = tempDir("hcp-watchdog-");
  const started: (number | undefined)[] = [];
  try {
    const { client, pid } = await readyServer(cwd, [PACK], isolatedEnv());
    started.push(pid);
    try {
      let watchdog: number | undefined;
      assert.ok(await eventually(() => (watchdog = watchdogOf(pid)) !== undefined, 30_000), "a watchdog before any call");
      started.push(watchdog);
      const answer = await client.callTool({ name: "guard_quick", arguments: {} });
      assert.equal((answer.structuredContent as { stdout?: string } | undefined)?.stdout, "ok\n");
      assert.equal(watchdogOf(pid), watchdog, "the first call's run is guarded by the watchdog already there");
      await client.close();
      assert.ok(await eventually(() => !alive(watchdog!), 15_000), "the watchdog ends with the server");
    } finally {
      await client.close();
    }
    // Openapi verbs are HTTP requests: no program of theirs could outlive hcp.
    const api = openapiPack({ doc: "notes.yaml", verbs: { "notes.list": { description: "List the notes." } } });
    const served = await readyServer(cwd, [api], openapiEnv());
    started.push(served.pid);
    try {
      // The watchdog, where one is started, is a turn of the event loop after the ping's answer: well within this.
      await sleep(1000);
      assert.equal(watchdogOf(served.pid), undefined, "a server whose tools run no program started a watchdog");
    } finally {
      await served.client.close();
    }
  } finally {
    cleanUp(cwd, ...started);
  }
});

test("hcp run: the run's program has exited, and hcp waits out the grace for a process of its group that ignores SIGTERM; SIGKILL of hcp then; the watchdog is still there and kills it", async () => {
  // A one-shot hcp run ends its watchdog once nothing of its run is left, not when the run's program exits.
  const cwd = tempDir("hcp-watchdog-");
  const stranger = bystander();
  const hcp = startHcp(["run", PACK, "linger"], cwd, "");
  const pidIn = (f: string) => Number(readFileSync(join(cwd, f), "utf8"));
  let watchdog: number | undefined;
  try {
    assert.ok(await eventually(() => existsSync(join(cwd, "run.pid")) && existsSync(join(cwd, "linger.pid")), 30_000), `the verb started: ${hcp.stderr()}`);
    const [run, left] = [pidIn("run.pid"), pidIn("linger.pid")];
    // The program exits at once; once hcp has reaped it (not only dead), it sends SIGTERM (ignored) and waits 2 s before SIGKILL.
    assert.ok(await eventually(() => !existsSync(`/proc/${run}`), 15_000), "the run's program exited and was reaped");
    watchdog = watchdogOf(hcp.child.pid!);
    assert.ok(watchdog !== undefined, "the watchdog outlives the run's program while a process of the run is left");
    hcp.child.kill("SIGKILL");
    assert.equal(await hcp.closed, "SIGKILL", `hcp was killed during the grace, not done already: ${hcp.stderr()}`);
    await assertSwept([left], watchdog, stranger);
  } finally {
    cleanUp(cwd, hcp.child.pid, watchdog, stranger.pid, ...(existsSync(join(cwd, "linger.pid")) ? [pidIn("linger.pid")] : []));
  }
});

const fleeing = [
  { verb: "flee", name: "leaving a setsid escapee that ignores SIGTERM (its parent gone, a session of its own), and hcp waits out the grace; SIGKILL of hcp then; the watchdog, told of the session as hcp saw it made, kills the escapee" },
  {
    verb: "flee-late",
    name: "leaving a process that ignores SIGTERM and made its session (setsid) only after hcp's watch had seen it in the run's (its parent gone), and hcp waits out the grace; SIGKILL of hcp then; the watchdog, told of the session as hcp saw it made, kills it",
  },
];

for (const way of ways) {
  for (const { verb, name } of fleeing) {
    test(`${way.name}: the run's program has exited, ${name}`, async () => {
      // Nothing in /proc ties such an escapee to the run once its parent has exited: only hcp's watch saw it made.
      const cwd = tempDir("hcp-watchdog-");
      const stranger = bystander();
      const hcp = startHcp(way.args(verb), cwd, way.input(verb));
      const pidIn = (f: string) => Number(readFileSync(join(cwd, f), "utf8"));
      let watchdog: number | undefined;
      try {
        const [run, escapee] = await runPids(cwd, hcp.stderr);
        assert.ok(await eventually(() => !existsSync(`/proc/${run}`), 15_000), "the run's program exited and was reaped");
        watchdog = watchdogOf(hcp.child.pid!);
        assert.ok(watchdog !== undefined, "the watchdog outlives the run's program while a process of the run is left");
        hcp.child.kill("SIGKILL");
        assert.equal(await hcp.closed, "SIGKILL", `hcp was killed during the grace, not done already: ${hcp.stderr()}`);
        await assertSwept([escapee!], watchdog, stranger);
      } finally {
        cleanUp(cwd, hcp.child.pid, watchdog, stranger.pid, ...(existsSync(join(cwd, "escapee.pid")) ? [pidIn("escapee.pid")] : []));
      }
    });
  }
}

test("a watchdog that cannot be started refuses the run (exit 2, naming it): nothing runs without it", async () => {
  // A copy of the built programs without the watchdog's program.
  const root = tempDir("hcp-broken-");
  cpSync(join(REPO, "dist/bin"), join(root, "dist/bin"), { recursive: true });
  rmSync(join(root, "dist/bin/watchdog-program.js"));
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"));
  const cwd = tempDir("hcp-watchdog-");
  try {
    const env = isolatedEnv();
    trustBeforeRunSync(join(root, "dist/bin/hcp.cjs"), ["run", PACK], { cwd, env });
    const broken = spawn(process.execPath, [join(root, "dist/bin/hcp.cjs"), "run", PACK, "stay"], { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    broken.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
    const code = await new Promise<number | null>((resolve) => broken.on("close", resolve));
    assert.equal(code, 2, err);
    assert.match(err, /cannot start hcp's watchdog, which ends the runs if hcp is killed \(.*watchdog-program\.js is missing\): nothing was run/);
    assert.ok(!existsSync(join(cwd, "run.pid")), "the verb did not run");
  } finally {
    cleanUp(cwd);
    rmSync(root, { recursive: true, force: true });
  }
});

test("hcp run: SIGKILL of hcp while a run's daemon forks a process every few ms (each in a session of its own); the watchdog leaves none behind", async () => {
  // Killed as they are found, the daemon's last children (started between a reading of /proc and its death) lose their
  // tie to the run: the watchdog stops what it finds first, and reads again until nothing new is found.
  const cwd = tempDir("hcp-watchdog-");
  const stranger = bystander();
  const hcp = startHcp(["run", PACK, "forks"], cwd, "");
  const pidFiles = (): number[] => readdirSync(cwd).filter((f) => /^(\d+|run)\.pid$|^k$/.test(f)).map((f) => Number(readFileSync(join(cwd, f), "utf8")));
  let watchdog: number | undefined;
  try {
    assert.ok(await eventually(() => existsSync(join(cwd, "run.pid")) && existsSync(join(cwd, "k")), 30_000), `the verb started: ${hcp.stderr()}`);
    // Forking for a while: its children come and go.
    await new Promise((resolve) => setTimeout(resolve, 500));
    watchdog = watchdogOf(hcp.child.pid!);
    assert.ok(watchdog !== undefined, "hcp started its watchdog before the run");
    hcp.child.kill("SIGKILL");
    assert.equal(await hcp.closed, "SIGKILL");
    assert.ok(await eventually(() => !alive(watchdog!), 30_000), "the watchdog exited after its work");
    // A child left behind finds its parent gone 0.3 s after it started, and writes its pid.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const survivors = pidFiles().filter(alive);
    assert.deepEqual(survivors, [], `${survivors.length} processes of the run outlived hcp`);
    assert.ok(alive(stranger.pid!), "a process of no run was not signalled");
  } finally {
    cleanUp(cwd, hcp.child.pid, watchdog, stranger.pid, ...(existsSync(cwd) ? pidFiles() : []));
  }
});

test("the end of a run leaves hcp's watchdog alone (a child of hcp that is no run's)", async () => {
  // The descendant watch takes a process whose parent is hcp and that is no run's child for a run's (one made with
  // clone(CLONE_PARENT)); the watchdog is hcp's child too, and the first reading of a run lists it as new.
  const cwd = tempDir("hcp-watchdog-");
  const hcp = startHcp(["exec", PACK], cwd, request(1, "pause"));
  let first: number | undefined;
  try {
    assert.ok(await eventually(() => (first = watchdogOf(hcp.child.pid!)) !== undefined, 30_000), "hcp started its watchdog");
    // The run pauses a second, then ends: a watchdog taken for its process would be killed then (SIGKILL 2 s later).
    await eventually(() => !alive(first!), 6000);
    assert.ok(alive(first!), "the watchdog outlived the run");
    assert.equal(watchdogOf(hcp.child.pid!), first, "hcp still has the same watchdog");
    hcp.child.stdin!.end();
    assert.equal(await hcp.closed, 0, hcp.stderr());
  } finally {
    cleanUp(cwd, hcp.child.pid, first);
  }
});
