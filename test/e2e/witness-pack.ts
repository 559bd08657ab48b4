// A pack whose verb records when each run starts and ends, so a test can show how many ran at once (the
// bound of limits.concurrency) from the log alone, without timing anything.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A pack whose one verb runs a program that appends "S" when it starts and "E" when it ends to `log`. */
export function witnessPack(root: string, id: string, log: string, concurrency?: number): string {
  const dir = join(root, id);
  mkdirSync(dir);
  const program = join(dir, "witness.sh");
  writeFileSync(program, `#!/bin/sh\necho S >> '${log}'\nsleep 0.02\necho E >> '${log}'\n`);
  chmodSync(program, 0o755);
  const surface = { id, kind: "wrap", wrap: { bin: program }, binding: { mode: "local", hub: "none" }, verbs: { work: { description: "Work a little.", cli: ["witness"], policy: "read" } } };
  writeFileSync(join(dir, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: id, verbs: { work: "read" }, ...(concurrency !== undefined && { limits: { concurrency } }) }));
  writeFileSync(join(dir, "HARNESS.md"), `---\nname: ${id}\ndescription: A witness.\n---\n\nA witness.\n`);
  return dir;
}

/** The S and E lines of a witness log. */
export const marks = (log: string) => readFileSync(log, "utf8").split("\n").filter((l) => l !== "").length;

/** The most S lines not yet matched by an E line at any point of the log: the most runs at once. */
export function peakOverlap(log: string): number {
  let now = 0;
  let peak = 0;
  for (const mark of readFileSync(log, "utf8").split("\n")) {
    if (mark === "S") peak = Math.max(peak, ++now);
    if (mark === "E") now--;
  }
  return peak;
}
