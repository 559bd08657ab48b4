// One process as /proc/<pid>/stat shows it, read in one system call: the descendant watch (descendants.ts) and the
// watchdog's sweep (watchdog-sweep.ts) both judge processes by it. Needs nothing but node:fs (the watchdog's bundle
// is kept small).

import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import { withoutStack } from "./without-stack.js";

/** A process as /proc/<pid>/stat shows it. */
export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly session: number;
  /** Clock ticks since boot: tells the process from a later one given its pid. */
  readonly start: string;
  /**
   * Dead, only waiting to be reaped. Not every "Z" is: a process whose first thread exited (SYS_exit, pthread_exit)
   * while others run shows "Z" with more than one thread, and lives on.
   */
  readonly zombie: boolean;
}

/**
 * The fields of a stat line; comm may hold spaces and parentheses, so the fields are those after the last ")". Only the
 * five it needs are cut out: `split(" ")` made all fifty-two, and V8 interns each part of a split (a lookup in its string
 * table per part), most of the cost of a parse; the watch parses one or more per run.
 */
export function parseStat(pid: number, text: string): ProcStat {
  // What `text.slice(text.lastIndexOf(")") + 2).split(" ")[i]` is for these i.
  let state: string | undefined, ppid: string | undefined, session: string | undefined, threads: string | undefined, start: string | undefined;
  let at = text.lastIndexOf(")") + 2;
  for (let i = 0; i <= 19 && at <= text.length; i++) {
    let end = text.indexOf(" ", at);
    if (end < 0) end = text.length;
    if (i === 0) state = text.slice(at, end);
    else if (i === 1) ppid = text.slice(at, end);
    else if (i === 3) session = text.slice(at, end);
    else if (i === 17) threads = text.slice(at, end); // num_threads
    else if (i === 19) start = text.slice(at, end);
    at = end + 1;
  }
  return { pid, ppid: Number(ppid), session: Number(session), start: start!, zombie: state === "Z" && Number(threads) <= 1 };
}

/** One buffer for every read of a stat file: they are a few hundred bytes, read one at a time. */
const buffer = Buffer.allocUnsafe(4096);

/**
 * The text of a /proc stat file in one read: /proc reports its size as 0, so readFileSync would fstat it and read
 * twice (to find the end); this read is about half the cost, and each read of the tree reads one per new process.
 */
function statText(path: string): string {
  const fd = openSync(path, "r");
  try {
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    // A full buffer may not be the whole file (never for a stat line): read it all.
    return n < buffer.length ? buffer.toString("latin1", 0, n) : readFileSync(path, "latin1");
  } finally {
    closeSync(fd);
  }
}

/**
 * The process with this pid; `gone` when there is none (ENOENT, or ESRCH as it is being reaped); undefined when /proc
 * cannot tell now (another error, or no /proc).
 */
export function readStat(pid: number): ProcStat | "gone" | undefined {
  // A failed read is a usual answer (the process is gone).
  return withoutStack(() => {
    try {
      return parseStat(pid, statText(`/proc/${pid}/stat`));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === "ENOENT" || code === "ESRCH" ? "gone" : undefined;
    }
  });
}

/**
 * Whether /proc shows a process (or a thread) with this pid now: what a successful readStat tells, in one system call
 * and without an error object where there is none (the usual answer once a run's child is reaped). False without /proc.
 */
export function procHas(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}
