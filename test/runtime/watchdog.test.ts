// hcp's watchdog (src/runtime/watchdog-program.ts), run on its own: when its pipe closes it kills the runs still
// registered (group, session, and what descends from them) and nothing else: not a run told ended, not a pid that
// is not a run's child, not a process with a reused pid (identity by start time).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../e2e/helpers.js";
import { identify, runProcesses, stillTheRuns, type ProcStat } from "../../src/runtime/watchdog-sweep.js";
import { alive, eventually, tempDir } from "./support.js";

const PROGRAM = join(REPO, "dist/src/runtime/watchdog-program.js");

/** The watchdog, started as hcp starts it; `exited` resolves with its exit code. */
function startWatchdog(): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [PROGRAM], { stdio: ["pipe", "ignore", "ignore"], detached: true, env: {} });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited };
}

/** A process like a run's child (its own session and group) with a child of its own in its session; both pids. */
async function runLike(): Promise<ChildProcess & { member: number }> {
  const dir = tempDir("hcp-watchdog-");
  const file = join(dir, "member.pid");
  const child = spawn("/bin/sh", ["-c", `sleep 300 & echo $! > ${file}.tmp && mv ${file}.tmp ${file}; exec sleep 300`], { detached: true, stdio: "ignore" });
  assert.ok(await eventually(() => readable(file), 20_000), "the run-like process started its member");
  return Object.assign(child, { member: Number(readFileSync(file, "utf8")) });
}

function readable(file: string): boolean {
  try {
    return readFileSync(file, "utf8").endsWith("\n");
  } catch {
    return false;
  }
}

/** A plain sleeper in the test's own session: not a run's child (it leads no session). */
const bystander = (detached: boolean) => spawn("sleep", ["300"], { detached, stdio: "ignore" });

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

test("when its pipe closes, the watchdog kills each run still registered (group and session) and nothing else, then exits", async () => {
  const run = await runLike();
  const ended = await runLike();
  const foreign = bystander(false);
  const unrelated = bystander(true);
  const pids = [run.pid!, run.member, ended.pid!, ended.member, foreign.pid!, unrelated.pid!];
  const watchdog = startWatchdog();
  try {
    // A run, a run told ended, and a pid registered that is no run's child (it leads no session of its own).
    watchdog.child.stdin!.end(`+${run.pid}\n+${ended.pid}\n+${foreign.pid}\n-${ended.pid}\n`);
    assert.equal(await watchdog.exited, 0);
    assert.ok(await eventually(() => !alive(run.pid!) && !alive(run.member), 10_000), "the registered run and its member are gone");
    assert.deepEqual([ended.pid, ended.member, foreign.pid, unrelated.pid].map((p) => alive(p!)), [true, true, true, true], "nothing else was signalled");
  } finally {
    killAll(pids);
  }
});

test("with nothing registered the watchdog exits at its pipe's end, killing nothing", async () => {
  const run = await runLike();
  const watchdog = startWatchdog();
  try {
    watchdog.child.stdin!.end(`+${run.pid}\n-${run.pid}\n`);
    assert.equal(await watchdog.exited, 0);
    assert.ok(alive(run.pid!) && alive(run.member));
  } finally {
    killAll([run.pid!, run.member]);
  }
});

test("identity: a registered pid is the run's child only while it is the process found at registration", async () => {
  const leader = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
  const member = bystander(false);
  try {
    await once(leader, "spawn");
    const identity = identify(leader.pid!);
    assert.ok(typeof identity === "object", `a session leader is identified by its start time: ${JSON.stringify(identity)}`);
    assert.equal(identify(member.pid!), "foreign", "a process leading no session of its own is no run's child");
    const now = (start: string): ProcStat => ({ pid: leader.pid!, ppid: 1, session: leader.pid!, start, zombie: false });
    assert.equal(stillTheRuns(identity, now(identity.start)), true, "the same process");
    assert.equal(stillTheRuns(identity, now(String(Number(identity.start) + 1))), false, "its pid given to a later process");
    assert.equal(stillTheRuns(identity, "gone"), true, "exited: its id is still held by what is left of its group or session");
    assert.equal(stillTheRuns("gone", now(identity.start)), false, "gone at registration, a process there now has the pid again");
    assert.equal(stillTheRuns("foreign", "gone"), false);
  } finally {
    killAll([leader.pid!, member.pid!]);
  }
});

const p = (pid: number, ppid: number, session: number, zombie = false): ProcStat => ({ pid, ppid, session, start: "1", zombie });

test("what descends from a run: its session, children of its processes, sessions they made; not the watchdog, not others", () => {
  const procs = [
    p(100, 1, 100), // the run's child (hcp gone: reparented)
    p(101, 1, 100), // a member of its session whose parent exited
    p(102, 100, 102), // a setsid escapee, child of the run's child
    p(103, 1, 102), // in the session the escapee made
    p(104, 102, 104, true), // a zombie escapee of the escapee: taken (its session counts), the caller skips it
    p(105, 1, 104), // in the zombie's session
    p(200, 1, 200), // another session entirely
    p(201, 200, 201), // its child
    p(300, 1, 100), // the watchdog itself, were it in that session
  ];
  const sessions = new Set([100]);
  const taken = runProcesses(procs, sessions, 300).map((x) => x.pid).sort();
  assert.deepEqual(taken, [100, 101, 102, 103, 104, 105]);
  assert.deepEqual([...sessions].sort(), [100, 102, 104], "sessions kept for the next snapshot");
});
