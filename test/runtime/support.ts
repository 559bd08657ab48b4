// Shared helpers of the runtime tests: the probe fixture, a base environment, process liveness.

import { chmodSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixture } from "../e2e/helpers.js";
import { tempDir } from "../temp.js";

/** test/fixtures/bin/probe.mjs. */
export const PROBE = fixture("bin/probe.mjs");

/** The smallest environment the probe needs (its shebang looks node up on PATH). */
export const BASE_ENV: Record<string, string> = { PATH: process.env["PATH"] ?? "/usr/bin:/bin" };

/** True while a process with this pid runs; a zombie (dead, not yet reaped by init) counts as gone. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..."; the state follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Waits until the predicate holds or the time is up; returns its last value. */
export async function eventually(predicate: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return predicate();
}

export { tempDir } from "../temp.js";

/**
 * Waits until a node process is asleep in its event loop (epoll_wait, as /proc/<pid>/wchan shows it): the turn it was
 * in is over. Where the kernel shows no wchan, half a second instead (a second when `pid` is still starting).
 */
export async function idleInEventLoop(pid: number, fallbackMs = 500): Promise<void> {
  const idle = () => {
    try {
      return readFileSync(`/proc/${pid}/wchan`, "latin1") === "do_epoll_wait";
    } catch {
      return false;
    }
  };
  if (!(await eventually(idle, 10_000))) await new Promise((resolve) => setTimeout(resolve, fallbackMs));
}

/** Writes a pack (surface.json, optional policy.json, a HARNESS.md) into a fresh folder and returns its root. */
export function writePack(surface: object, policy?: object): string {
  const root = tempDir("hcp-pack-");
  writeFileSync(join(root, "surface.json"), JSON.stringify(surface, null, 2));
  if (policy !== undefined) writeFileSync(join(root, "policy.json"), JSON.stringify(policy, null, 2));
  const id = (surface as { id: string }).id;
  writeFileSync(join(root, "HARNESS.md"), `---\nname: ${id}\ndescription: Test pack.\n---\n\nTest pack.\n`);
  return root;
}

/** Writes a credential file with the given mode and returns its path. */
export function writeCredentials(doc: object, mode = 0o600): string {
  const file = join(tempDir("hcp-cred-"), "credentials.json");
  writeFileSync(file, JSON.stringify(doc), { mode });
  chmodSync(file, mode);
  return file;
}

/** The watchdog of the hcp with this pid (its command line names it), while it runs. */
export function watchdogOf(hcp: number): number | undefined {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // node (a one-shot run's, until hcp is gone: /bin/sh, its script, node), the program, the runs it was given when
      // started again, hcp's pid.
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (argv.some((arg) => arg.endsWith("watchdog-program.js")) && argv.at(-2) === String(hcp)) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
