// Descendants of a child that may have left its process group (setsid, double fork), found through /proc
// on Linux (§6.4): the tree is read every 25 ms while any run lasts, and each process new since the last
// read is written to a log once (/proc is listed only when a process may have begun that the log does not
// have: fork-count.ts; a process that took the id of one listed before is new, told by the pid cursor, or by its start
// time where the cursor does not follow); every run judges every entry logged since it began (never one judged by
// another run only), and takes it when its parent is the run's, when its session is one a run's process
// is in, or when it was made by one of the run's processes (a daemon's double fork stays in the session
// its setsid made), or when it carries the run's mark in its environment (run-mark.ts: a double fork whose parent has
// exited before a read saw it). At the end, so is every process holding one of the child's pipes.
// Where /proc is missing all this finds nothing (README, SECURITY.md).

import { readdirSync, readlinkSync } from "node:fs";
import { monotonicMs } from "../clock.js";
import { forksSoFar } from "./fork-count.js";
import { readStat, type ProcStat } from "./proc-stat.js";
import { fullRound, givenOut, lastPid, tasksAtLastPid } from "./pid-cursor.js";
import { runMarksOf } from "./run-mark.js";
import { withoutStack } from "./without-stack.js";

/**
 * A process as first seen: its start time (clock ticks since boot) tells it from a later one with its pid. The run's
 * own child has none (null): until it is reaped its pid is held by it, even as a zombie, and once reaped it is
 * marked dead (`reaped`, in the same callback as the reaping). `dead` once it was found gone, a zombie or replaced:
 * a process never comes back, so it is not looked up again.
 */
interface Seen {
  readonly pid: number;
  readonly start: string | null;
  dead: boolean;
}

/** How often the tree is read while any run lasts. */
const POLL_MS = 25;
/** How many times the tree is read at most while the run's processes are stopped before they are killed. */
const FREEZE_ROUNDS = 8;

/** What a read of a process's stat file says when the process is not there. */
const GONE = "gone";

/** State, parent, session and start time from /proc/<pid>/stat, or undefined when it is gone (or there is no /proc). */
function stat(pid: number): ProcStat | undefined {
  const s = readStat(pid);
  return s === GONE ? undefined : s;
}

/** The run marks of logged processes, read once each (every watch judging an entry may ask). */
const marksSeen = new WeakMap<ProcStat, readonly string[]>();

/** The run marks the process logged as `s` carries (run-mark.ts); none once another process has its pid. */
function marksOf(s: ProcStat): readonly string[] {
  let marks = marksSeen.get(s);
  if (marks === undefined) {
    const carried = runMarksOf(s.pid) ?? [];
    // Read after the environment: the process logged then had it, not one given its pid since.
    marks = stat(s.pid)?.start === s.start ? carried : [];
    marksSeen.set(s, marks);
  }
  return marks;
}

/** The pids /proc lists (none when it cannot be listed). */
function pids(): number[] {
  try {
    const out: number[] = [];
    for (const name of readdirSync("/proc")) {
      const pid = Number(name); // "self", "sys", … are NaN
      if (Number.isInteger(pid)) out.push(pid);
    }
    return out;
  } catch {
    return [];
  }
}

/** The same process as first seen, still running (a zombie is dead: it only waits to be reaped). */
function alive(p: Seen): boolean {
  return statNow(p) !== undefined;
}

/** The stat of the same process as first seen while it is still running; undefined otherwise (see alive). */
function statNow(p: Seen): ProcStat | undefined {
  if (p.dead) return undefined;
  const s = readStat(p.pid);
  // Unreadable now (out of file descriptors…): not signalled this time, and looked up again next time.
  if (s === undefined) return undefined;
  if (s === GONE || (p.start !== null && s.start !== p.start) || s.zombie) {
    p.dead = true;
    return undefined;
  }
  return s;
}

/**
 * Whether a process whose parent is the runtime and that is no run's child is a run's (made by a run's child with
 * clone(CLONE_PARENT)). Not where the runtime is the first process of its pid namespace (a container's init): every
 * orphan of the namespace has it for parent then, one of a process another started (docker exec) too.
 */
const runtimeChildIsRuns = process.pid !== 1;
/** The runtime's children that are no run's (hcp's watchdog), while they run: never taken for a run's. */
const helpers = new Set<number>();

/** A child the runtime starts for itself (the watchdog), told as it is spawned, before any read of the tree. */
export function helperStarted(pid: number): void {
  helpers.add(pid);
}

/** That child has exited: its pid may be given to another process. */
export function helperExited(pid: number): void {
  helpers.delete(pid);
}

/** The runtime's own session: never taken for a run's (a child starts in a session of its own). */
let ownSession: number | undefined;

const watches = new Set<DescendantWatch>();
/**
 * The pids of the last listing of /proc: a pid not among them is a new process, its stat read once into the log. Where
 * the pid cursor is not known to follow, each with its start time as that listing read it (see read), else undefined.
 */
let previous = new Map<number, string | undefined>();
/** The pid cursor read just before the last listing (see pid-cursor.ts); undefined when it cannot be read. */
let listedAt: number | undefined;
/** The runs' own children until they are reaped: never logged (no run but their own may take them: see owns). */
const children = new Set<number>();
/** Whether /proc was ever listed: until then `listedAt` is a rebase's. */
let listedEver = false;
/** The runs' own children known when they started (root) since the last listing. */
const rooted = new Set<number>();
/** The kernel's count of processes made (fork-count.ts), read just before the last listing. */
let forksAtListing: number | undefined;
/** The tasks counted with the pid cursor read just before the last listing: how many ids a round may skip (fullRound). */
let tasksAtListing: number | undefined;
/** How many of the runs' own children started since the last listing without being in it: each counted since. */
let rootedUnlisted = 0;
/**
 * Whether the count has counted every child of the runs so far. Not every /proc/stat follows new processes (gVisor,
 * LXCFS): once the count has missed a child of ours, it is never trusted again, and /proc is listed at every read.
 */
let forksFollow = true;
/**
 * Whether the pid cursor follows new processes: each run's child shows it (its pid was given out after the cursor read
 * before its spawn, up to the cursor read after). Not every /proc/loadavg does (gVisor prints 0; LXCFS its own): once a
 * child was not, the cursor is never trusted again. Undefined until a child has shown it.
 */
let cursorFollows: boolean | undefined;
/**
 * Every process new since the oldest watch began, in the order seen: `logStart` is the index of the
 * first entry kept. Each watch keeps its own place in it, so a read made for one run (or by the poll)
 * before another run knows its child hides nothing from that run.
 */
let log: Array<[number, ProcStat]> = [];
let logStart = 0;
/** A read of the tree made in this task (callback and its microtasks) serves every run asking in it. */
let readThisTask = false;
let poller: NodeJS.Timeout | undefined;
/** When the tree was last read (monotonicMs()). */
let lastReadAt = -Infinity;

/**
 * Reads the tree unless it was read in this task (`evenInThisTask`: all the same): the events that made a run ask
 * came before that read. `baseline`: no watch is on, what runs now is only remembered as not new (no stat read).
 */
function read(baseline = false, evenInThisTask = false): void {
  if (readThisTask && !evenInThisTask) return;
  lastReadAt = monotonicMs();
  readThisTask = true;
  queueMicrotask(() => {
    readThisTask = false;
  });
  // The count first: a process made between the two readings is then not counted, and the next read lists /proc
  // again, where its id, given out after this cursor, is new. (Read the other way round, it would be counted, and its
  // id, given out after the cursor, taken for that of a process the last listing had: never logged.)
  const forks = forksSoFar();
  const cursor = lastPid();
  const tasks = tasksAtLastPid();
  const since = listedAt;
  // Not where /proc is another pid namespace's (no cursor then).
  if (cursor !== undefined && forks !== undefined && forksAtListing !== undefined) {
    const begun = forks - forksAtListing;
    if (begun < rootedUnlisted) forksFollow = false;
    // No process has begun since the last listing but the runs' own children, known when they started: a listing
    // would find nothing new.
    if (forksFollow && begun === rootedUnlisted) return;
  }
  const now = pids();
  // A process that took the id of one in the last listing (ids wrapped) is new. The cursor tells it where it follows (its
  // id was given out since), unless so many processes were made since (hcp stopped or starved meanwhile) that the ids
  // may have gone a full round, when every listed process is new. Where the cursor or the count cannot be trusted, each
  // listed process's start time is kept, and tells it.
  const cursorTells = cursorFollows === true && cursor !== undefined && since !== undefined;
  const counted = forksFollow && forks !== undefined && forksAtListing !== undefined;
  const byStart = !cursorTells || !counted;
  const round = counted && forks! - forksAtListing! >= fullRound(tasksAtListing);
  // Before the first listing, the last cursor was read by a rebase, when no run was on: a process new to the listing
  // whose id was not given out after it (up to a reading taken after this listing, which has every process listed)
  // began before every run, and its stat is not read. A fresh process's first listing (a one-shot hcp run's, made as
  // soon as anything else began during the run: the watchdog's threads do) otherwise read every process's stat.
  const listedBy = !listedEver && !baseline && !byStart && !round ? lastPid() : undefined;
  const listed = new Map<number, string | undefined>();
  for (const pid of now) {
    const before = previous.get(pid);
    const s = byStart ? readStat(pid) : undefined;
    const start = s !== undefined && s !== GONE ? s.start : undefined;
    listed.set(pid, byStart ? (start ?? before) : undefined);
    // Not new: what runs at a baseline, and the runs' own children.
    if (baseline || rooted.has(pid) || children.has(pid)) continue;
    if (previous.has(pid)) {
      // With both start times, they tell; else the cursor does, where it can.
      const kept = before !== undefined && start !== undefined;
      if (kept ? before === start : !round && (!cursorTells || !givenOut(pid, since!, cursor!))) continue;
    } else if (listedBy !== undefined && !givenOut(pid, since!, listedBy)) continue;
    const found = s ?? readStat(pid);
    if (found !== undefined && found !== GONE) log.push([pid, found]);
  }
  previous = listed;
  listedEver = true;
  listedAt = cursor;
  tasksAtListing = tasks;
  forksAtListing = forks;
  rootedUnlisted = 0;
  rooted.clear();
}

/**
 * No run is on, and one is about to start: what began since the last listing cannot be a run's, so the counts are read
 * again as if /proc had been listed now, without listing it, and a listing afterwards looks for what begins from now on.
 * What began before and is not in the last listing is logged then as new, and taken by no run (none of its parents,
 * sessions or session makers is a run's: a run's processes all begin after this). Runs one after another, with other
 * processes beginning between them (a busy machine), then list /proc only when something began during a run.
 * Only where the cursor is known to follow (or nothing was ever listed): a process that takes the id of one in the last
 * listing is told new by its id given out since the rebase, and a cursor that does not move would hide it for good (the
 * listing can be long ago, and ids wrap since). False, and nothing done, where the count or the cursor cannot be trusted.
 */
function rebase(): boolean {
  if (cursorFollows !== true && previous.size > 0) return false;
  // The count first, as in read.
  const forks = forksFollow ? forksSoFar() : undefined;
  const cursor = lastPid();
  if (forks === undefined || cursor === undefined) return false;
  lastReadAt = monotonicMs();
  forksAtListing = forks;
  listedAt = cursor;
  tasksAtListing = tasksAtLastPid();
  rootedUnlisted = 0;
  rooted.clear();
  return true;
}

/** Drops the entries every watch has judged. */
function trim(): void {
  let oldest = logStart + log.length;
  for (const w of watches) oldest = Math.min(oldest, w.cursor);
  if (oldest > logStart) {
    log = log.slice(oldest - logStart);
    logStart = oldest;
  }
}

function tick(): void {
  if (watches.size === 0) {
    // Every run ended since the last tick: the poll stops (see DescendantWatch's constructor).
    clearInterval(poller);
    poller = undefined;
    return;
  }
  read();
  for (const w of watches) {
    w.adopt();
    w.followSessions();
  }
  trim();
}

/** The descendants of one child; make it before the child is spawned, so that none is missed. */
export class DescendantWatch {
  private readonly known = new Map<number, Seen>();
  /** Each session a process of the run was seen in (not the runtime's), with that process's start (see stillNames). */
  private readonly sessions = new Map<number, number>();
  /**
   * The start times of the processes logged at an id this watch ties processes to (a known pid, a session's id) other
   * than the one it knows there: its process, and any session it made, gone since, and the id given out again.
   */
  private readonly later = new Map<number, number[]>();
  private readonly pipes = new Set<string>();
  private rootPid: number | undefined;
  /** The child as first seen. */
  private rootSeen: Seen | undefined;
  /** The child's start time, where the runtime read it as it started (the watchdog's identity of it). */
  private rootStart: number | undefined;
  /** The child's stdio cannot be read any more: it has exited. */
  private pipesGone = false;
  /** The child's fds to read as its pipes. */
  private pipeFds: readonly number[] = [];
  /** The first log entry this watch has not judged: everything logged since it was made. */
  cursor: number;
  /** The pid cursor before the child is spawned: its pid is given out after it (see cursorFollows). */
  private readonly pidBefore = lastPid();

  /**
   * `onSession`: told each session a process of the run made (setsid), as it is first seen: a process in it whose parent
   * has exited is tied to the run by nothing /proc shows afterwards, but by this watch (the reaper has the watchdog
   * guard it too). `mark`: the run's mark, in its child's environment (run-mark.ts).
   */
  constructor(
    private readonly onSession: (id: number) => unknown = () => {},
    private readonly mark?: string,
  ) {
    ownSession ??= stat(process.pid)?.session;
    // The first watch while none is on reads the counts anew (rebase). Where they cannot be trusted, the first watch
    // after a quiet time (no poll) lists /proc: what runs now is not new (a read made in this task is current). While
    // the poll still runs, the tree was read within its interval (the poll stops only at a tick that finds no watch,
    // one interval after the last run ended).
    const rebased = watches.size === 0 && rebase();
    if (!rebased && poller === undefined) read(true);
    // The poll waits for the event loop, which a burst of runs keeps busy (many calls started in one task, each fork
    // slow on a busy machine): the tree is read here too once an interval has passed since the last read, so that
    // what the runs started earlier begin is logged while their parents live (one that outlives its parent in a
    // session of its own cannot be told from another's afterwards). Not after a rebase, which is such a read.
    else if (monotonicMs() - lastReadAt >= POLL_MS) read(false, true);
    this.cursor = logStart + log.length;
    watches.add(this);
    poller ??= setInterval(tick, POLL_MS).unref();
  }

  /**
   * The pipes the child was given, looked up the moment its spawn returns, before anything else is done for it (root,
   * its identity, the watchdog): `pipeFds`, its fds that are pipes of the run as /proc names them (libuv's are socket
   * pairs; a stdin of /dev/null is left out). A program that exits at once takes its stdio with it, and a descendant it
   * left holding them is then found only by the tree: on a loaded machine such a program (a double fork, then exit)
   * exited before the lookup in 17 of 600 runs (one at a time, 2 CPU hogs on 2 cores) when it came after the watchdog was
   * told of the run, whose wake-up could take the CPU from hcp; in none of 600 since.
   */
  spawned(pid: number, pipeFds: readonly number[]): void {
    this.pipeFds = pipeFds;
    this.readPipes(pid);
  }

  /**
   * The child itself, just spawned in a session and group of its own (detached: their id is its pid), known before any
   * read of the tree after its spawn (runProcess calls this as spawn returns, after spawned). Its /proc stat is not
   * read: its parent, session and start are known, and what it starts is logged by a later read and judged by this
   * watch then (its place in the log is kept until it is known). `exited`: it was found exited (gone, or a zombie) as it
   * was identified, so its stdio can no longer be read.
   */
  root(pid: number, start?: string, exited = false): void {
    // Not new to a listing (the next one skips it), and no other run's: its parent is the runtime, its session its
    // own. Its session is followed as every known process's is (owns): its id is the child's pid.
    // One the last listing did not have was counted after it (a fork is listed once counted, and this one is not
    // reaped yet); one it had (a listing made between its spawn and now) was counted before.
    if (!previous.has(pid)) rootedUnlisted++;
    previous.set(pid, undefined);
    const pidAfter = lastPid();
    if (this.pidBefore !== undefined && pidAfter !== undefined) cursorFollows = cursorFollows !== false && givenOut(pid, this.pidBefore, pidAfter);
    rooted.add(pid);
    children.add(pid);
    const seen: Seen = { pid, start: null, dead: false };
    this.known.set(pid, seen);
    this.rootSeen = seen;
    this.rootPid = pid;
    this.rootStart = start === undefined ? undefined : Number(start);
    // Found exited as it was identified (a zombie has closed its files): its stdio is not looked for again, where each
    // lookup would fail.
    if (exited) this.pipesGone = true;
    this.adopt();
  }

  /** Reads the child's stdio once it can be read (not while it execs), while it lives. */
  private readPipes(pid = this.rootPid): void {
    if (pid === undefined || this.pipes.size > 0 || this.pipesGone) return;
    let gone = 0;
    // A failed lookup is a usual answer (the child has exited).
    withoutStack(() => {
      for (const fd of this.pipeFds) {
        try {
          const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
          if (target.startsWith("pipe:") || target.startsWith("socket:")) this.pipes.add(target);
        } catch (err) {
          // closed, gone, or no /proc
          if ((err as NodeJS.ErrnoException).code === "ENOENT") gone++;
        }
      }
    });
    // None is there: the child has exited (a zombie has closed its files, or it closed them all) and nothing is left
    // to read. Not trying again spares every later read of the tree failed lookups per run in flight.
    if (gone === this.pipeFds.length) this.pipesGone = true;
  }

  private add(pid: number, s: ProcStat): Seen {
    const seen: Seen = { pid, start: s.start, dead: false };
    this.known.set(pid, seen);
    this.noteSession(s);
    return seen;
  }

  /** Notes the session a process of the run is in, and tells onSession of one the run's processes made. */
  private noteSession(s: ProcStat): void {
    if (s.session !== ownSession && !this.sessions.has(s.session)) {
      this.sessions.set(s.session, Number(s.start));
      if (s.session !== this.rootPid) this.onSession(s.session);
    }
  }

  /**
   * Notes each session a known process of the run has made since it was seen: one seen between its fork and its
   * setsid() (or that calls it later, on purpose) was added in the session it left, and once its parent has exited
   * nothing /proc shows ties it to the run but its new session, which the watchdog must then know. The child itself
   * leads its session already, and can make no other.
   */
  followSessions(): void {
    for (const p of this.known.values()) {
      if (p === this.rootSeen) continue;
      const s = statNow(p);
      if (s !== undefined) this.noteSession(s);
    }
  }

  /**
   * The child has exited and been reaped (its exit reported by waitpid): it is not looked up again, nor its
   * stdio. Its descendants are judged as before.
   */
  reaped(): void {
    if (this.rootSeen === undefined) return;
    children.delete(this.rootSeen.pid);
    this.rootSeen.dead = true;
    this.pipesGone = true;
  }

  /**
   * Whether a process is the run's: its parent is, its session is, or its session was made by one of the run's; or it
   * carries the run's mark (inherited through what /proc no longer shows: a parent gone, a session of its own); or its
   * parent is the runtime, whose only children are the runs' own, each known as it is spawned and so never logged: a
   * process a run's child made with clone(CLONE_PARENT) has the runtime for parent (and keeps it while the runtime
   * lives). Which run's cannot be told: every run that judges it takes it. (Not where the runtime is init, nor the
   * runtime's own helpers.) Each tie by an id holds only while the id still names the run's process or session
   * (stillNames); `batch`: the start times of the processes logged in the entries being judged, by pid.
   */
  private owns(pid: number, s: ProcStat, batch: ReadonlyMap<number, number[]>): boolean {
    // A session's id is its maker's pid, and the kernel gives no new process that pid while the session
    // lasts: a session made by one of the run's processes (setsid after it was seen) is the run's.
    if (runtimeChildIsRuns && s.ppid === process.pid && !helpers.has(pid)) return true;
    const start = Number(s.start);
    const parent = this.known.get(s.ppid);
    const maker = this.known.get(s.session);
    const since = this.sessions.get(s.session);
    return (
      (parent !== undefined && this.stillNames(s.ppid, this.startOf(parent), start, batch)) ||
      (since !== undefined && this.stillNames(s.session, since, start, batch)) ||
      (maker !== undefined && this.stillNames(s.session, this.startOf(maker), start, batch)) ||
      (this.mark !== undefined && marksOf(s).includes(this.mark))
    );
  }

  /** A known process's start time; the child's where it was read as it started, else undefined. */
  private startOf(p: Seen): number | undefined {
    return p.start === null ? this.rootStart : Number(p.start);
  }

  /**
   * Whether `id`, the pid of a process of the run or the id of a session of it, which named it from `since` (a start
   * time; undefined: not known) on, still named it for a process begun at `start`: no other process was logged at that id having begun after
   * `since` and no later than `start`. The kernel gives a pid out again only once its process, and the group and session
   * it made, are gone: a process logged there since is another's (an unrelated process of the user's), and so are the
   * processes it starts and the session it makes. (A process begun in the same clock tick as that other is not taken by
   * the tie: it may be the other's.) What has the id now is asked too: the log misses a process that took an id the last
   * listing had where the pid cursor was set back (ns_last_pid, as root) and the count shows no full round. Without
   * `since`, the log cannot tell a process that had the id before the run's from one after, and only what has the id now
   * is asked: once the run's process is gone, one given its id later began no earlier than any the run's started by it.
   */
  private stillNames(id: number, since: number | undefined, start: number, batch: ReadonlyMap<number, number[]>): boolean {
    const takenMeanwhile = (t: number) => (since === undefined || t > since) && t <= start;
    if (since !== undefined && (this.later.get(id)?.some(takenMeanwhile) === true || batch.get(id)?.some(takenMeanwhile) === true)) return false;
    const now = stat(id);
    // Gone, the run's own child not reaped yet, or the very process known.
    if (now === undefined || (id === this.rootPid && this.rootSeen?.dead === false) || this.known.get(id)?.start === now.start) return true;
    return !takenMeanwhile(Number(now.start));
  }

  /**
   * Judges the processes logged since this watch last looked, to a fixed point: one whose parent is
   * logged after it is still taken. Not before the child is known (the entries wait for it).
   */
  adopt(): void {
    if (this.rootPid === undefined) return;
    this.readPipes();
    const end = logStart + log.length;
    if (this.cursor === end) return;
    const fresh = log.slice(this.cursor - logStart);
    this.cursor = end;
    const batch = new Map<number, number[]>();
    for (const [pid, s] of fresh) {
      const starts = batch.get(pid);
      if (starts === undefined) batch.set(pid, [Number(s.start)]);
      else starts.push(Number(s.start));
    }
    let grew = true;
    while (grew) {
      grew = false;
      for (const [pid, s] of fresh) {
        // A known pid with another start is a new process that took the id of a known one, gone (ids wrapped).
        if (this.known.get(pid)?.start === s.start || !this.owns(pid, s, batch)) continue;
        this.add(pid, s);
        grew = true;
      }
    }
    // Kept for the entries judged later: what took an id this watch ties processes to.
    for (const [pid, s] of fresh) {
      if (this.known.get(pid)?.start === s.start || (!this.known.has(pid) && !this.sessions.has(pid))) continue;
      const starts = this.later.get(pid);
      if (starts === undefined) this.later.set(pid, [Number(s.start)]);
      else starts.push(Number(s.start));
    }
  }

  /** Reads the tree now (the run is ending). */
  refresh(): void {
    read();
    this.adopt();
    this.followSessions();
    trim();
  }

  /** Adds every process holding one of the child's pipes: a descendant that left the group and the tree. */
  adoptPipeHolders(): void {
    if (this.pipes.size === 0) return;
    for (const pid of pids()) {
      if (pid === process.pid || this.known.has(pid)) continue;
      let dir = `/proc/${pid}/fd`;
      let fds: string[];
      try {
        fds = readdirSync(dir);
        // Empty also when its first thread has exited while others run: their files are listed under a thread of theirs.
        if (fds.length === 0) {
          const thread = readdirSync(`/proc/${pid}/task`).find((tid) => tid !== String(pid));
          if (thread === undefined) continue;
          dir = `/proc/${pid}/task/${thread}/fd`;
          fds = readdirSync(dir);
        }
      } catch {
        continue; // gone, or another user's
      }
      const holds = fds.some((fd) => {
        try {
          return this.pipes.has(readlinkSync(`${dir}/${fd}`));
        } catch {
          return false;
        }
      });
      const s = holds ? stat(pid) : undefined;
      if (s !== undefined) this.add(pid, s);
    }
  }

  /**
   * Stops every descendant (SIGSTOP, which none can catch or ignore: a stopped process starts no other) and reads the
   * tree until it finds none new, stopping each one found: what they started since the last read is found while its
   * parent lives, and is killed with them. The rounds are bounded: a process started just before its parent stopped
   * runs until it is found, and may start another meanwhile.
   */
  freeze(): void {
    for (let round = 0; round < FREEZE_ROUNDS; round++) {
      const before = this.known.size;
      this.signal("SIGSTOP");
      read(false, true);
      this.adopt();
      if (this.known.size === before) return;
    }
  }

  /** The sessions the run's processes made (onSession was told each), not the run's own. */
  sessionsMade(): number[] {
    return [...this.sessions.keys()].filter((id) => id !== this.rootPid);
  }

  /** Sends a signal to every descendant still alive (the very process first seen). Never throws. */
  signal(signal: NodeJS.Signals): void {
    for (const p of this.known.values()) {
      if (!alive(p)) continue;
      try {
        process.kill(p.pid, signal);
      } catch {
        // gone meanwhile
      }
    }
  }

  /** Whether any descendant is still alive. */
  anyAlive(): boolean {
    for (const p of this.known.values()) if (alive(p)) return true;
    return false;
  }

  /** Stops watching: the run is over and all its processes are gone or killed. The poll stops at its next tick. */
  stop(): void {
    if (this.rootPid !== undefined) children.delete(this.rootPid);
    watches.delete(this);
    trim();
  }
}
