// The kernel's pid cursor on Linux: the last id it gave a new process (or thread) in this pid namespace, the last
// field of /proc/loadavg. Ids are given out in turn after it (wrapping at pid_max), so the ids given out since a
// reading are the ones after it: a listed process whose id was given out since the last listing is new, even when an
// earlier process had that id (descendants.ts). The cursor moves when a fork takes its id, before the process can be
// listed: whether anything has begun since a listing is told by the fork count (fork-count.ts), not by the cursor.
// Nor can the cursor tell a full round of ids (the program stops hcp, then makes processes until the ids come round):
// a fork count since a reading as large as a round (fullRound) says the cursor may have come round past it. A round
// skips the ids in use, which the program can hold (threads that wait): the tasks counted at the reading (the same
// line of /proc/loadavg) bound them.

import { readFileSync, readlinkSync } from "node:fs";
import { KeptOpenProcFile } from "./proc-file.js";

const buffer = Buffer.allocUnsafe(256);
const loadavg = new KeptOpenProcFile("/proc/loadavg");

/** Whether /proc shows this process's own pid namespace (the cursor is the reader's namespace's). */
let procIsOurs: boolean | undefined;

/** How many tasks (processes and threads) the machine had at the last reading of the cursor; undefined unread. */
let tasksAtReading: number | undefined;

/** The tasks counted with the last cursor read (lastPid), or undefined when /proc did not tell. */
export function tasksAtLastPid(): number | undefined {
  return tasksAtReading;
}

/** The last pid given out, or undefined when /proc cannot tell (no /proc, or not this pid namespace's). */
export function lastPid(): number | undefined {
  tasksAtReading = undefined;
  try {
    procIsOurs ??= readlinkSync("/proc/self") === String(process.pid);
    if (!procIsOurs) return undefined;
    const n = loadavg.read(buffer);
    // "0.52 0.58 0.59 2/123 45678\n"
    const text = buffer.toString("latin1", 0, n).trim();
    const space = text.lastIndexOf(" ");
    const last = Number(text.slice(space + 1));
    const tasks = Number(text.slice(text.lastIndexOf("/", space) + 1, space));
    if (Number.isSafeInteger(tasks) && tasks >= 0) tasksAtReading = tasks;
    return Number.isSafeInteger(last) && last >= 0 ? last : undefined;
  } catch {
    procIsOurs ??= false;
    return undefined;
  }
}

/** Whether `id` was given out after the cursor stood at `from`, up to `to` (the ids wrap around at pid_max). */
export function givenOut(id: number, from: number, to: number): boolean {
  return to >= from ? id > from && id <= to : id > from || id <= to;
}

/** The ids below this are skipped once the cursor has passed it (the kernel's RESERVED_PIDS). */
const RESERVED = 300;
let round: number | undefined;

/**
 * How many processes are made at the least before the cursor comes back where it was, given the tasks counted when it
 * was read (not known: taken as none): the ids from 300 up to pid_max, less those in use then, which the kernel skips
 * (at most three per task: its pid, and the group and session ids of leaders gone; a program can hold most ids with
 * threads that wait); taken as half of them, for margin. Where the tasks are a third of the ids or more, any process made.
 */
export function fullRound(tasks = 0): number {
  if (round === undefined) {
    let pidMax = 32_768;
    try {
      pidMax = Number(readFileSync("/proc/sys/kernel/pid_max", "latin1").trim()) || pidMax;
    } catch {
      // no /proc: the kernel's default
    }
    round = pidMax - RESERVED;
  }
  return Math.max(1, Math.floor((round - 3 * tasks) / 2));
}
