// A run's mark (§6.4): a random value the run's program gets in its environment as HCP_RUN_ID, which every process it
// starts inherits (a fork keeps the environment, and so does an exec unless given another). /proc shows a process's
// environment to its own user, long after nothing else there ties it to the run: a double fork that made a session of
// its own and whose parent has exited within one reading of the tree (descendants.ts) is still found by its mark, by
// hcp at the run's end and by the watchdog once hcp is gone. The mark is random, so no process begun before the run has
// it, and nothing else reads it. Needs nothing but node:fs and node:crypto (the watchdog's bundle is kept small).

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { withoutStack } from "./without-stack.js";

/** The variable each run's program is given its mark in. */
export const RUN_MARK_VARIABLE = "HCP_RUN_ID";

/** A new run's mark. */
export const newRunMark = (): string => randomUUID();

/** Whether a value can be a run's mark (what the watchdog accepts on its pipe). */
export const isRunMark = (value: string): boolean => /^[0-9a-f-]{36}$/.test(value);

const PREFIX = Buffer.from(`${RUN_MARK_VARIABLE}=`, "latin1");

/**
 * The values of HCP_RUN_ID in the environment /proc shows for a process (usually one; none when it has no mark), or
 * undefined when /proc does not show it: gone, another user's, or made undumpable (a setuid program, one that asked
 * with prctl), or no /proc. A process's environment is what it was given at its last exec.
 */
export function runMarksOf(pid: number): string[] | undefined {
  // A failed read is a usual answer (the process is gone).
  const env = withoutStack(() => {
    try {
      return readFileSync(`/proc/${pid}/environ`);
    } catch {
      return undefined;
    }
  });
  if (env === undefined) return undefined;
  const marks: string[] = [];
  // Each entry ends with a NUL; a mark is an entry that starts with the prefix.
  for (let at = env.indexOf(PREFIX); at !== -1; at = env.indexOf(PREFIX, at + 1)) {
    if (at > 0 && env[at - 1] !== 0) continue;
    const end = env.indexOf(0, at);
    marks.push(env.toString("latin1", at + PREFIX.length, end === -1 ? env.length : end));
  }
  return marks;
}
