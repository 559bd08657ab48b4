// The kernel's count of processes (and threads) made since boot on Linux: the `processes` line of /proc/stat.
// The kernel raises it in the same step, under the same lock, as it makes a new process findable in /proc: every
// process a reading counts is listed by a later listing of /proc (or is gone). The pid cursor (pid-cursor.ts) moves
// earlier, when a fork takes its id, and a busy machine can leave a fork between the two for long: a listing made
// then misses the process, and the cursor, which does not move again, would say nothing has begun since. The
// descendant watch lists /proc only when this count has moved by more than the runs' own children (descendants.ts).

import { readFileSync } from "node:fs";
import { KeptOpenProcFile } from "./proc-file.js";

/** Large enough for /proc/stat on most machines (its size grows with the CPUs and interrupts); larger is read whole. */
const buffer = Buffer.allocUnsafe(64 * 1024);
const stat = new KeptOpenProcFile("/proc/stat");
const KEY = Buffer.from("\nprocesses ");

/** The count of processes made since boot, or undefined when /proc cannot tell. */
export function forksSoFar(): number | undefined {
  try {
    const n = stat.read(buffer);
    const text = n < buffer.length ? buffer.subarray(0, n) : readFileSync("/proc/stat");
    const at = text.indexOf(KEY);
    if (at < 0) return undefined;
    let count = 0;
    let digits = 0;
    for (let i = at + KEY.length; i < text.length && text[i]! >= 0x30 && text[i]! <= 0x39; i++, digits++) count = count * 10 + text[i]! - 0x30;
    return digits > 0 && Number.isSafeInteger(count) ? count : undefined;
  } catch {
    return undefined;
  }
}
