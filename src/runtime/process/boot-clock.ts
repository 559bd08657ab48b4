// The time since boot as /proc/uptime tells it, in the unit of a process's start time in /proc/<pid>/stat (clock
// ticks, USER_HZ: 100 a second on every Linux port but alpha's and ia64's). Both read the same clock and round down,
// so a process started after a reading has a start time no smaller than it. The watchdog uses it to tell what began
// after hcp set out to spawn a run (watchdog-unregistered.ts).

import { KeptOpenProcFile } from "./proc-file.js";

const buffer = Buffer.allocUnsafe(64);
const uptime = new KeptOpenProcFile("/proc/uptime");

/** Clock ticks since boot now, or undefined when /proc cannot tell. */
export function bootTicks(): number | undefined {
  try {
    const n = uptime.read(buffer);
    // "72088.88 140012.31\n": seconds with two decimals, which are the ticks with a dot before the last two digits.
    const seconds = buffer.toString("latin1", 0, n).split(" ")[0]!;
    const ticks = /^\d+\.\d\d$/.test(seconds) ? Number(seconds.replace(".", "")) : NaN;
    return Number.isSafeInteger(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}
