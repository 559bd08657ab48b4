// Descendants of a child that may have left its process group (setsid, double fork), found through /proc
// on Linux (§6.4): read every 25 ms while the run lasts, a new process is the run's when its parent is,
// or when it is in a session one of the run's processes is in (a daemon's double fork stays in the
// session its setsid made); at the end, so is every process holding one of the child's pipes.
// Where /proc is missing all this finds nothing (README, SECURITY.md).

import { readFileSync, readdirSync, readlinkSync } from "node:fs";

/** A process as first seen: its start time (clock ticks since boot) tells it from a later one with its pid. */
interface Seen {
  readonly pid: number;
  readonly start: string;
}

/** How often the tree is read while any run lasts. */
const POLL_MS = 25;

interface Stat {
  state: string;
  ppid: number;
  session: number;
  start: string;
}

/** State, parent, session and start time from /proc/<pid>/stat, or undefined when it is gone (or there is no /proc). */
function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "latin1");
    // "pid (comm) S ppid pgrp session … starttime …": comm may hold spaces and parentheses; fields follow the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, ppid: Number(fields[1]), session: Number(fields[3]), start: fields[19]! };
  } catch {
    return undefined;
  }
}

function pids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/** The same process as first seen, still running (a zombie is dead: it only waits to be reaped). */
function alive(p: Seen): boolean {
  const s = stat(p.pid);
  return s !== undefined && s.start === p.start && s.state !== "Z";
}

/** The runtime's own session: never taken for a run's (a child starts in a session of its own). */
let ownSession: number | undefined;

const watches = new Set<DescendantWatch>();
let previous = new Set<number>();
let poller: NodeJS.Timeout | undefined;

/**
 * One read of the tree for every watch: only processes that appeared since the last read are looked at
 * (a process that was already there cannot have been started by a run since).
 */
function tick(): void {
  const now = pids();
  const fresh = new Map<number, Stat>();
  for (const pid of now) {
    if (previous.has(pid)) continue;
    const s = stat(pid);
    if (s !== undefined) fresh.set(pid, s);
  }
  previous = new Set(now);
  for (const w of watches) w.adopt(fresh);
}

/** The descendants of one child; make it before the child is spawned, so that none is missed. */
export class DescendantWatch {
  private readonly known = new Map<number, Seen>();
  private readonly sessions = new Set<number>();
  private readonly pipes = new Set<string>();
  private rootPid: number | undefined;
  /** The child's stdio cannot be read any more: it has exited. */
  private pipesGone = false;

  constructor() {
    ownSession ??= stat(process.pid)?.session;
    if (watches.size === 0) previous = new Set(pids());
    watches.add(this);
    poller ??= setInterval(tick, POLL_MS).unref();
  }

  /** The child itself, and the pipes it was given: its fds 0–2 as /proc names them (libuv's are socket pairs). */
  root(pid: number): void {
    const s = stat(pid);
    if (s === undefined) return;
    this.add(pid, s);
    this.rootPid = pid;
    this.readPipes();
    tick();
  }

  /** Reads the child's stdio once it can be read (not while it execs), while it lives. */
  private readPipes(): void {
    if (this.rootPid === undefined || this.pipes.size > 0 || this.pipesGone) return;
    let gone = 0;
    for (const fd of [0, 1, 2]) {
      try {
        const target = readlinkSync(`/proc/${this.rootPid}/fd/${fd}`);
        if (target.startsWith("pipe:") || target.startsWith("socket:")) this.pipes.add(target);
      } catch (err) {
        // closed, gone, or no /proc
        if ((err as NodeJS.ErrnoException).code === "ENOENT") gone++;
      }
    }
    // None of the three is there: the child has exited (or closed them all) and nothing is left to read.
    // Not trying again spares every later read of the tree three failed lookups per run in flight.
    if (gone === 3) this.pipesGone = true;
  }

  private add(pid: number, s: Stat): void {
    this.known.set(pid, { pid, start: s.start });
    if (s.session !== ownSession) this.sessions.add(s.session);
  }

  /** Takes in the new processes whose parent is the run's, or whose session is, to a fixed point. */
  adopt(fresh: ReadonlyMap<number, Stat>): void {
    this.readPipes();
    let grew = true;
    while (grew) {
      grew = false;
      for (const [pid, s] of fresh) {
        if (this.known.has(pid) || !(this.known.has(s.ppid) || this.sessions.has(s.session))) continue;
        this.add(pid, s);
        grew = true;
      }
    }
  }

  /** Reads the tree now (the run is ending). */
  refresh(): void {
    tick();
  }

  /** Adds every process holding one of the child's pipes: a descendant that left the group and the tree. */
  adoptPipeHolders(): void {
    if (this.pipes.size === 0) return;
    for (const pid of pids()) {
      if (pid === process.pid || this.known.has(pid)) continue;
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue; // gone, or another user's
      }
      const holds = fds.some((fd) => {
        try {
          return this.pipes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
        } catch {
          return false;
        }
      });
      const s = holds ? stat(pid) : undefined;
      if (s !== undefined) this.add(pid, s);
    }
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

  /** Stops watching: the run is over and all its processes are gone or killed. */
  stop(): void {
    watches.delete(this);
    if (watches.size === 0 && poller !== undefined) {
      clearInterval(poller);
      poller = undefined;
    }
  }
}
