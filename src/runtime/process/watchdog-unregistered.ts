// The run hcp was starting when it was killed, found by the watchdog though hcp never told it the run's pid. Node's
// spawn returns only once the child has exec'd its program, so the program runs, and can kill hcp, before hcp can tell
// the watchdog its pid: a program whose first step was `kill -KILL $PPID` won that race in 4 of 10 runs on an idle
// machine. So just before each spawn hcp tells the watchdog where the kernel's pid cursor and clock stand (a spawn
// mark, `?CURSOR TICKS`), and the run's `+PID` line (or a bare `?`, the spawn failed) clears it. When hcp is gone with
// a mark still open, its child is the first process that was given its id after the cursor, began (by the clock)
// after the mark and before hcp was found gone (the lifeline: watchdog-program.ts), leads a session of its own, and
// was left by its parent to the process that now has hcp's children (the watchdog is one: its own parent says which);
// or, when that child has exited already, its session, which outlives it while a process it left is in it. Of such
// processes, one carrying the run's mark in its environment (the mark names it: run-mark.ts), then one still showing
// the arguments hcp spawned the child with (the mark carries their digest), is taken before one given an id earlier: a
// process of someone else's, forked in the instant between the mark and hcp's fork, that made a session of its own and
// lost its parent would otherwise be taken for the run's child.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { bootTicks } from "./boot-clock.js";
import { givenOut, lastPid } from "./pid-cursor.js";
import { readStat, type ProcStat } from "./proc-stat.js";
import { isRunMark, runMarksOf } from "./run-mark.js";
import { snapshot, type RunIdentity } from "./watchdog-sweep.js";

/** Where the pid cursor and the clock stood just before hcp spawned a run's child, and what it was given. */
export interface SpawnMark {
  readonly cursor: number;
  /** Clock ticks since boot (boot-clock.ts): the unit of a process's start time. */
  readonly ticks: number;
  /**
   * The child's arguments after its program, as the end of its /proc/PID/cmdline shows them (each followed by a NUL,
   * also after a `#!` interpreter's words): their length in bytes and SHA-256. None when it was given none.
   */
  readonly args?: { readonly bytes: number; readonly sha256: string };
  /** The run's mark (run-mark.ts): the child, and what it starts, carry it in their environment. */
  readonly run?: string;
}

/** Arguments as they end a process's /proc/PID/cmdline: each in UTF-8, followed by a NUL. */
function cmdlineTail(args: readonly string[]): Buffer {
  return Buffer.from(args.map((a) => `${a}\0`).join(""), "utf8");
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/**
 * Loads what a mark needs (node:crypto, some milliseconds: hcp's builtins are loaded on first use), for a server to
 * do before its first call rather than in it.
 */
export function readyMarks(): void {
  sha256(new Uint8Array(0));
}

/** What the watchdog knows once hcp is gone. */
export interface AfterHcp {
  /** The pid cursor at the snapshot. */
  readonly now: number;
  /**
   * hcp's pid and the process that now has hcp's children (an orphan keeps hcp as its parent for the instant between
   * hcp's closing its files and its exit).
   */
  readonly parents: ReadonlySet<number>;
  /** When hcp was found gone, in clock ticks: the run's child began before. */
  readonly goneAt: number;
  /** The watchdog's pid. */
  readonly self: number;
}

/**
 * The line that marks a spawn now (`?CURSOR TICKS`, then `BYTES SHA256` of the child's arguments when it is given any,
 * then the run's mark when given, with its newline), read just before it; undefined where /proc does not tell the pid
 * cursor or the clock, when there is nothing to find a child by. Only a digest of the arguments: one may be a secret.
 */
export function markLine(args: readonly string[] = [], run?: string): string | undefined {
  const cursor = lastPid();
  const ticks = bootTicks();
  if (cursor === undefined || ticks === undefined) return undefined;
  const tail = cmdlineTail(args);
  return `?${cursor} ${ticks}${tail.length === 0 ? "" : ` ${tail.length} ${sha256(tail)}`}${run === undefined ? "" : ` ${run}`}\n`;
}

/** The mark a `?CURSOR TICKS [BYTES SHA256] [RUN]` line sets; undefined for a bare `?` (or anything else), which clears it. */
export function parseMark(line: string): SpawnMark | undefined {
  const match = /^\?(\d+) (\d+)(?: ([1-9]\d*) ([0-9a-f]{64}))?(?: (\S+))?$/.exec(line);
  if (match === null || (match[5] !== undefined && !isRunMark(match[5]))) return undefined;
  return {
    cursor: Number(match[1]),
    ticks: Number(match[2]),
    ...(match[3] === undefined ? {} : { args: { bytes: Number(match[3]), sha256: match[4]! } }),
    ...(match[5] === undefined ? {} : { run: match[5] }),
  };
}

/** Whether the process `pid` shows the mark's arguments at the end of its command line, after a whole word of its own. */
function startedWithArgs(pid: number, args: NonNullable<SpawnMark["args"]>): boolean {
  let cmdline: Buffer;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`);
  } catch {
    return false; // gone, or not ours to read
  }
  const at = cmdline.length - args.bytes;
  return at > 0 && cmdline[at - 1] === 0 && sha256(cmdline.subarray(at)) === args.sha256;
}

/**
 * The run's child in a snapshot of /proc, with what it is (RunIdentity), or undefined when nothing there can be it.
 * Of the candidates, the one whose id came first after the cursor: hcp's spawn forks once, so the run's child has the
 * first id hcp was given after the mark, and what the run made after it, later ones. But first of those that carry
 * the run's mark (`carries`: the leader, or a member of a session whose leader is gone), then of those that still
 * show the mark's arguments (`shows`), where the mark has any and one does: a candidate given an id before the child's
 * was forked by someone else, and has neither.
 */
export function unregisteredRun(
  procs: readonly ProcStat[],
  mark: SpawnMark,
  after: AfterHcp,
  shows: (pid: number) => boolean = () => false,
  carries: (pid: number) => boolean = () => false,
): [number, RunIdentity] | undefined {
  const since = (p: ProcStat) => Number(p.start) >= mark.ticks && after.parents.has(p.ppid) && p.pid !== after.self;
  const pids = new Set(procs.map((p) => p.pid));
  let best: [number, RunIdentity] | undefined;
  let bestShowing: [number, RunIdentity] | undefined;
  let bestCarrying: [number, RunIdentity] | undefined;
  // Ids after the cursor first, then those it wrapped round to (givenOut bounds them by `now`).
  const order = (id: number) => (id > mark.cursor ? id - mark.cursor : id + 2 ** 32);
  const first = (a: [number, RunIdentity] | undefined, id: number) => a === undefined || order(id) < order(a[0]);
  /** `id`: the session's (its leader's pid); `holder`: the process of it seen (the leader, or a member once it is gone). */
  const consider = (id: number, identity: RunIdentity, holder: number) => {
    if (!givenOut(id, mark.cursor, after.now)) return;
    if (first(best, id)) best = [id, identity];
    // A session whose leader is gone shows no arguments.
    if (identity !== "gone" && first(bestShowing, id) && shows(id)) bestShowing = [id, identity];
    if (first(bestCarrying, id) && carries(holder)) bestCarrying = [id, identity];
  };
  for (const p of procs) {
    if (!since(p)) continue;
    if (p.session !== p.pid) {
      // A session whose leader has exited and been reaped: its id is held by its members only.
      if (!pids.has(p.session)) consider(p.session, "gone", p.pid);
    } else if (Number(p.start) <= after.goneAt) {
      // Begun after hcp's end, a leader is no child of hcp's. A zombie too is known by its start: its group and session
      // are the run's while it is not reaped.
      consider(p.pid, { start: p.start }, p.pid);
    }
  }
  return bestCarrying ?? bestShowing ?? best;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How long the watchdog waits, at most, to be given another parent once hcp's end of its pipe is closed. */
const REPARENT_MS = 200;

/**
 * The run hcp was starting when it died (see above), hcp found gone at `goneAt` (clock ticks): read from /proc once
 * hcp's children have their new parent.
 */
export async function findUnregisteredRun(mark: SpawnMark, hcp: number, goneAt: number): Promise<[number, RunIdentity] | undefined> {
  let self = readStat(process.pid);
  for (let waited = 0; waited < REPARENT_MS && typeof self === "object" && self.ppid === hcp; waited += 5) {
    await pause(5);
    self = readStat(process.pid);
  }
  if (typeof self !== "object") return undefined;
  const now = lastPid();
  const procs = snapshot();
  if (now === undefined || procs === undefined) return undefined;
  const { args } = mark;
  const shows = args === undefined ? undefined : (pid: number) => startedWithArgs(pid, args);
  const { run } = mark;
  const carries = run === undefined ? undefined : (pid: number) => runMarksOf(pid)?.includes(run) === true;
  return unregisteredRun(procs, mark, { now, parents: new Set([hcp, self.ppid]), goneAt, self: process.pid }, shows, carries);
}
