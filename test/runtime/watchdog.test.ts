// hcp's watchdog (src/runtime/process/watchdog-program.ts), run on its own: when its pipe closes it kills the runs still
// registered (group, session, and what descends from them) and nothing else: not a run told ended, not a pid that
// is not a run's child, not a process with a reused pid (identity by start time).

// What /proc alone shows: where hcp could make cgroups, this file runs where it cannot (test/without-cgroups.ts).
import "../without-cgroups.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { REPO } from "../e2e/helpers.js";
import { identify, runProcesses, stillTheRuns, type ProcStat } from "../../src/runtime/process/watchdog-sweep.js";
import { markLine, parseMark, unregisteredRun } from "../../src/runtime/process/watchdog-unregistered.js";
import { alive, eventually, idleInEventLoop, tempDir } from "./support.js";

const PROGRAM = join(REPO, "dist/src/runtime/process/watchdog-program.js");

/**
 * The watchdog, started as hcp starts it (`args`: hcp's pid last), its fd 3 the lifeline (a pipe the test holds and
 * never writes, as hcp does); `exited` resolves with its exit code.
 */
function startWatchdog(...args: string[]): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [PROGRAM, ...args], { stdio: ["pipe", "ignore", "ignore", "pipe"], detached: true, env: {} });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited };
}

/**
 * The shell arguments of a process like a run's child: it starts a member, writes its pid to `file`, then `then`:
 * `exec sleep 300` (it becomes a sleeper), or `wait` (it stays the shell, still showing these arguments).
 */
function runLikeArgs(then: "exec sleep 300" | "wait" = "exec sleep 300"): { args: string[]; file: string } {
  const file = join(tempDir("hcp-watchdog-"), "member.pid");
  return { args: ["-c", `sleep 300 & echo $! > ${file}.tmp && mv ${file}.tmp ${file}; ${then}`], file };
}

/** A process like a run's child (its own session and group) with a child of its own in its session; both pids. */
async function runLike({ args, file } = runLikeArgs(), env: NodeJS.ProcessEnv = process.env): Promise<ChildProcess & { member: number }> {
  const child = spawn("/bin/sh", args, { detached: true, stdio: "ignore", env });
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

/** A sleeper carrying a run's mark, in a session of its own, its parent this test: only its environment names a run. */
const carrier = (mark: string) => spawn("sleep", ["300"], { detached: true, stdio: "ignore", env: { HCP_RUN_ID: mark } });
/** A running process's start time, as hcp tells it to the watchdog. */
const startOf = (pid: number) => (identify(pid) as { start: string }).start;

test("a run's mark: a process carrying the mark of a run still registered is killed though nothing in /proc ties it to the run (a session of its own, another parent); one carrying another mark, or a run's told ended, is not", async () => {
  const run = await runLike();
  const ended = await runLike();
  const [mark, endedMark] = [randomUUID(), randomUUID()];
  const escapee = carrier(mark);
  const other = carrier(randomUUID());
  const endedEscapee = carrier(endedMark);
  await Promise.all([escapee, other, endedEscapee].map((c) => once(c, "spawn")));
  const pids = [run.pid!, run.member, ended.pid!, ended.member, escapee.pid!, other.pid!, endedEscapee.pid!];
  const watchdog = startWatchdog();
  try {
    watchdog.child.stdin!.end(`+${run.pid} ${startOf(run.pid!)} ${mark}\n+${ended.pid} ${startOf(ended.pid!)} ${endedMark}\n-${ended.pid}\n`);
    assert.equal(await watchdog.exited, 0);
    assert.ok(await eventually(() => ![run.pid!, run.member, escapee.pid!].some(alive), 10_000), "the run, its member and the process carrying its mark are gone");
    assert.deepEqual([ended.pid!, ended.member, other.pid!, endedEscapee.pid!].map(alive), [true, true, true, true], "nothing else was signalled");
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

/** A spawn mark as hcp writes it just before a spawn: where the pid cursor and the clock stand now. */
function markNow(): string {
  const line = markLine();
  assert.ok(line !== undefined, "/proc tells the pid cursor and the clock");
  return line;
}

test("a spawn mark still open when the pipe closes: the watchdog kills the run hcp never told it of, and nothing else", async () => {
  // "hcp" is this test (its pid the watchdog's last argument): its children are what hcp's are, and it stays their parent.
  const before = await runLike();
  const watchdog = startWatchdog(String(process.pid));
  const mark = markNow();
  const run = await runLike();
  const later = await runLike();
  const pids = [before.pid!, before.member, run.pid!, run.member, later.pid!, later.member];
  try {
    watchdog.child.stdin!.end(mark);
    assert.equal(await watchdog.exited, 0);
    assert.ok(await eventually(() => !alive(run.pid!) && !alive(run.member), 10_000), "the run spawned after the mark and its member are gone");
    assert.deepEqual([before.pid, before.member, later.pid, later.member].map((pid) => alive(pid!)), [true, true, true, true], "nothing started before the mark, or after the run's child, was signalled");
  } finally {
    killAll(pids);
  }
});

/**
 * The watchdog started, then given the spawn mark `markOf` writes (as hcp does before a spawn) and closed, after a
 * leader of someone else's was forked (the decoy: the first leader since the mark whose parent was "hcp", this test)
 * and then the run's child (`startChild`): the child and its member are killed (`killed` says why they are the run's),
 * the decoy and its member are not (`spared`).
 */
async function decoyLeftAlone(markOf: () => string | undefined, startChild: () => ReturnType<typeof runLike>, killed: string, spared: string): Promise<void> {
  const watchdog = startWatchdog(String(process.pid));
  const mark = markOf();
  assert.ok(mark !== undefined, "/proc tells the pid cursor and the clock");
  const decoy = await runLike();
  const child = await startChild();
  const pids = [decoy.pid!, decoy.member, child.pid!, child.member];
  try {
    watchdog.child.stdin!.end(mark);
    assert.equal(await watchdog.exited, 0);
    assert.ok(await eventually(() => !alive(child.pid!) && !alive(child.member), 10_000), killed);
    assert.deepEqual([alive(decoy.pid!), alive(decoy.member)], [true, true], spared);
  } finally {
    killAll(pids);
  }
}

test("a spawn mark names the run's arguments: a leader of someone else's given an id between the mark and the run's fork is left alone, and the run that shows them is killed", async () => {
  const run = runLikeArgs("wait");
  await decoyLeftAlone(
    () => markLine(run.args),
    () => runLike(run),
    "the run started with the mark's arguments and its member are gone",
    "the leader forked first, with other arguments, was not signalled",
  );
});

test("a spawn mark names the run's mark: a leader of someone else's given an id between the mark and the run's fork is left alone, and the run that carries the mark in its environment is killed, though it shows other arguments", async () => {
  const run = randomUUID();
  await decoyLeftAlone(
    // The arguments hcp gave the child, which it no longer shows (it ran another program).
    () => markLine(["transfer", "--to=alice"], run),
    () => runLike(runLikeArgs(), { ...process.env, HCP_RUN_ID: run }),
    "the run carrying the mark and its member are gone",
    "the leader forked first, with no mark, was not signalled",
  );
});

test("a spawn mark with no child (hcp gone before its fork): a session leader begun after hcp's end, seen on the lifeline, is not taken", async () => {
  const watchdog = startWatchdog(String(process.pid));
  const pids: number[] = [];
  try {
    // Started and waiting, as hcp's is long before a run.
    await idleInEventLoop(watchdog.child.pid!, 1_000);
    watchdog.child.stdin!.write(markNow());
    // "hcp" is gone: its end of the lifeline closes first, as the kernel closes all of a dead process's files at once.
    (watchdog.child.stdio[3] as Socket).destroy();
    // The watchdog closes its end once it has seen hcp's (and taken the time): on a loaded machine that can be long after.
    assert.ok(await eventually(() => !existsSync(`/proc/${watchdog.child.pid}/fd/3`), 10_000), "the watchdog saw the lifeline end");
    // A clock tick is 10 ms: the leader begins in a later one.
    await sleep(30);
    const later = await runLike();
    pids.push(later.pid!, later.member);
    watchdog.child.stdin!.end();
    assert.equal(await watchdog.exited, 0);
    assert.ok(alive(later.pid!) && alive(later.member), "a session leader begun after hcp's end was not signalled");
  } finally {
    killAll(pids);
  }
});

test("a spawn mark cleared (the run told, or its spawn failed) leaves nothing to find", async () => {
  for (const told of [true, false]) {
    const watchdog = startWatchdog(String(process.pid));
    const mark = markNow();
    const run = await runLike();
    try {
      watchdog.child.stdin!.end(mark + (told ? `+${run.pid}\n-${run.pid}\n` : "?\n"));
      assert.equal(await watchdog.exited, 0);
      assert.ok(alive(run.pid!) && alive(run.member), told ? "a run told ended" : "a spawn told failed");
    } finally {
      killAll([run.pid!, run.member]);
    }
  }
});

const q = (pid: number, ppid: number, session: number, start: number, zombie = false): ProcStat => ({ pid, ppid, session, start: String(start), zombie });
/** A `carries` of unregisteredRun: these processes carry the run's mark. */
const carries = (...pids: number[]) => (pid: number) => pids.includes(pid);

test("the run hcp was spawning: the first leader of a session of its own, since the mark, whose parent hcp was", () => {
  const mark = { cursor: 500, ticks: 1000 };
  const hcp = 50;
  const self = 506;
  const after = { now: 520, parents: new Set([hcp, 1]), goneAt: 1010, self };
  const others = [
    q(480, 1, 480, 1005), // its id given out before the mark
    q(505, 1, 505, 900), // begun before the mark (its id after the cursor: the ids came round)
    q(503, 77, 503, 1001), // its parent lives, and is neither hcp nor the one that has hcp's children
    q(self, 1, self, 1001), // the watchdog
    q(512, 1, 512, 1003), // a daemon begun since the run's child
  ];
  const child = q(510, 1, 510, 1002);
  const escapee = q(511, 510, 511, 1002);
  assert.deepEqual(unregisteredRun([...others, child, escapee], mark, after), [510, { start: "1002" }]);
  assert.deepEqual(unregisteredRun([...others, { ...child, ppid: hcp }], mark, after), [510, { start: "1002" }], "hcp's children not given another parent yet");
  assert.deepEqual(unregisteredRun([...others, { ...child, zombie: true }], mark, after), [510, { start: "1002" }], "exited, not reaped: known by its start");
  assert.deepEqual(unregisteredRun([...others, q(515, 1, 509, 1004)], mark, after), [509, "gone"], "exited and reaped: its session, held by a process it left");
  assert.deepEqual(unregisteredRun([...others, q(515, 1, 509, 1020)], mark, after), [509, "gone"], "its session, though what holds it began after hcp's end");
  assert.deepEqual(unregisteredRun(others, mark, { ...after, now: 511 }), undefined, "the daemon's id is after the cursor read at the snapshot");
  assert.deepEqual(unregisteredRun(others, mark, { ...after, goneAt: 1002 }), undefined, "the daemon began after hcp's end: no child of hcp's");
  assert.deepEqual(unregisteredRun(others.slice(0, 4), mark, after), undefined, "nothing can be the run's child");
  // The ids wrapped round after the cursor: those after it came first.
  const wrapped = { cursor: 32_700, ticks: 1000 };
  const wrappedAfter = { ...after, now: 20 };
  assert.deepEqual(unregisteredRun([q(10, 1, 10, 1001), q(32_750, 1, 32_750, 1001), q(25, 1, 25, 1001)], wrapped, wrappedAfter), [32_750, { start: "1001" }]);
  assert.deepEqual(unregisteredRun([q(10, 1, 10, 1001), q(25, 1, 25, 1001)], wrapped, wrappedAfter), [10, { start: "1001" }]);
  // A leader of someone else's, given an id in the instant between the mark and hcp's fork: the child still showing
  // the arguments it was spawned with is taken before it; with none showing them, the first, as without arguments.
  const decoy = q(508, 1, 508, 1001);
  assert.deepEqual(unregisteredRun([...others, decoy, child, escapee], mark, after, (pid) => pid === child.pid), [510, { start: "1002" }]);
  assert.deepEqual(unregisteredRun([...others, decoy, child, escapee], mark, after), [508, { start: "1001" }], "without the arguments, the first leader");
  assert.deepEqual(unregisteredRun([...others, decoy, child], mark, after, () => false), [508, { start: "1001" }], "the child shows other arguments (it ran another program)");
  assert.deepEqual(unregisteredRun([...others, q(515, 1, 509, 1004), child], mark, after, (pid) => pid === 509), [509, "gone"], "a session whose leader is gone shows nothing; the first is taken");
  // The run's mark in the environment names the child before anything else: the leader, or a member of its session.
  assert.deepEqual(unregisteredRun([...others, decoy, child, escapee], mark, after, () => false, carries(child.pid, escapee.pid)), [510, { start: "1002" }], "the child ran another program, and carries the mark");
  assert.deepEqual(unregisteredRun([...others, decoy, child], mark, after, (pid) => pid === decoy.pid, carries(child.pid)), [510, { start: "1002" }], "the decoy shows the arguments, the child carries the mark");
  assert.deepEqual(unregisteredRun([...others, decoy, q(515, 1, 509, 1004)], mark, after, () => false, carries(515)), [509, "gone"], "the child gone, a member of its session carries the mark");
  assert.deepEqual(unregisteredRun([...others, decoy, child], mark, after, () => false, carries()), [508, { start: "1001" }], "none carries it (another environment): as before");
});

test("spawn marks: `?CURSOR TICKS [BYTES SHA256] [RUN]` sets one; a bare `?`, or anything else, clears it", () => {
  assert.deepEqual(parseMark("?12 345"), { cursor: 12, ticks: 345 });
  const digest = "a".repeat(64);
  const run = randomUUID();
  assert.deepEqual(parseMark(`?12 345 7 ${digest}`), { cursor: 12, ticks: 345, args: { bytes: 7, sha256: digest } });
  assert.deepEqual(parseMark(`?12 345 7 ${digest} ${run}`), { cursor: 12, ticks: 345, args: { bytes: 7, sha256: digest }, run });
  assert.deepEqual(parseMark(`?12 345 ${run}`), { cursor: 12, ticks: 345, run });
  assert.deepEqual(parseMark(markLine([], run)!.trimEnd())!.run, run);
  for (const line of ["?", "?12", "?12 ", "?a 1", "?1 2 3", `?1 2 0 ${digest}`, `?1 2 3 ${digest.slice(1)}`, `?1 2 3 ${digest.toUpperCase()}`, `?1 2 ${run} x`, `?1 2 ${run.toUpperCase()}`]) {
    assert.equal(parseMark(line), undefined, line);
  }
  // The arguments' digest, never the arguments: one may be a secret.
  const line = markLine(["transfer", "--password=hunter2"]);
  assert.ok(line !== undefined);
  assert.ok(!line.includes("hunter2"), line);
  const mark = parseMark(line.trimEnd())!;
  assert.equal(mark.args!.bytes, Buffer.byteLength("transfer\0--password=hunter2\0"));
  assert.equal(parseMark(markLine([])!.trimEnd())!.args, undefined, "no arguments, no digest");
});
