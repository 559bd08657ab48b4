// The kernel's pid cursor on Linux: the last id it gave a new process (or thread) in this pid namespace, the last
// field of /proc/loadavg. Ids are given out in turn after it (wrapping at pid_max), so while it has not moved
// nothing has begun, and the ids given out since a reading are the ones after it. The descendant watch lists
// /proc only when something it does not know may have begun (descendants.ts).

import { closeSync, openSync, readSync, readlinkSync } from "node:fs";

const buffer = Buffer.allocUnsafe(256);

/** Whether /proc shows this process's own pid namespace (the cursor is the reader's namespace's). */
let procIsOurs: boolean | undefined;

/**
 * /proc/loadavg, kept open (close-on-exec, as Node opens every file): a read at offset 0 makes its text anew, so
 * each read is one `pread` instead of an `open`, a `read` and a `close`.
 */
let loadavg: number | undefined;

/** The last pid given out, or undefined when /proc cannot tell (no /proc, or not this pid namespace's). */
export function lastPid(): number | undefined {
  try {
    procIsOurs ??= readlinkSync("/proc/self") === String(process.pid);
    if (!procIsOurs) return undefined;
    loadavg ??= openSync("/proc/loadavg", "r");
    const n = readSync(loadavg, buffer, 0, buffer.length, 0);
    // "0.52 0.58 0.59 2/123 45678\n"
    const text = buffer.toString("latin1", 0, n).trim();
    const last = Number(text.slice(text.lastIndexOf(" ") + 1));
    return Number.isSafeInteger(last) && last >= 0 ? last : undefined;
  } catch {
    procIsOurs ??= false;
    // Opened again at the next read.
    const fd = loadavg;
    loadavg = undefined;
    if (fd !== undefined) closeQuietly(fd);
    return undefined;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // not open any more
  }
}

/** Whether `id` was given out after the cursor stood at `from`, up to `to` (the ids wrap around at pid_max). */
export function givenOut(id: number, from: number, to: number): boolean {
  return to >= from ? id > from && id <= to : id > from || id <= to;
}

/** Most ids checked one by one for being known: past it the tree is listed. */
const MAX_SPAN = 64;

/** Whether every id given out after `from` up to `to` is one of `known` (none given out: true). */
export function onlyKnown(from: number, to: number, known: ReadonlySet<number>): boolean {
  if (to === from) return true;
  if (to < from || to - from > MAX_SPAN) return false;
  for (let id = from + 1; id <= to; id++) if (!known.has(id)) return false;
  return true;
}
