// Red team against the faster descendant watch (§6.4, SECURITY.md "Processes"): the pid cursor that skips listing
// /proc, the reaper that stops looking up what it found dead or empty, and the exit path a tick later. Each test
// starts the built hcp with a program that tries to leave a process behind, and asserts none survives.

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fixture } from "./helpers.js";
import { eventually } from "../runtime/support.js";
import { hcp, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack } from "./hardening.js";

/**
 * Whether the process runs. A "Z" in /proc is not enough to call it dead: a process whose first thread exited
 * alone shows "Z" while its other threads run (a true zombie has one thread left).
 */
function runs(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] !== "Z" || Number(fields[17]) > 1;
  } catch {
    return false;
  }
}

/** The pids the escapees wrote (files named `*.pid` in dir). */
function pidsIn(dir: string): number[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".pid"))
    .map((f) => Number(readFileSync(join(dir, f), "utf8")));
}

/** Waits (a generous hang guard, not a timing) until none of the pids runs; kills and names any survivor. */
async function noSurvivor(pids: number[], what: string): Promise<void> {
  assert.ok(pids.length > 0 && pids.every((p) => Number.isInteger(p) && p > 1), `${what}: the escapees wrote their pids: ${pids.join(" ")}`);
  await eventually(() => !pids.some(runs), 5000);
  const survivors = pids.filter(runs);
  for (const pid of survivors) process.kill(pid, "SIGKILL");
  assert.deepEqual(survivors, [], `${what}: ${survivors.length} of ${pids.length} escapees outlived their run`);
}

/** A pack whose verbs run `program` with the given argv after the bin. */
function programPack(id: string, program: string, verbs: Record<string, string[]>): string {
  const surfaceVerbs: Record<string, object> = {};
  const policy: Record<string, string> = {};
  for (const [name, argv] of Object.entries(verbs)) {
    surfaceVerbs[name] = { description: name, cli: ["prog", ...argv], policy: "read" };
    policy[name] = "read";
  }
  return probePack(id, surfaceVerbs, { cliBin: "prog", wrap: { bin: program } }, { verbs: policy });
}

const THREAD_ESCAPEE = fixture("bin/thread-escapee.py");

test("a setsid escapee whose first thread exits alone (/proc shows it a zombie, it runs on) is killed after the run", async () => {
  const dir = tempDir("hcp-watch-pids-");
  const root = programPack("zombie", THREAD_ESCAPEE, { seen: ["seen", join(dir, "seen.pid")] });
  const r = await hcp(["run", root, "seen"], { env: isolatedEnv(), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(join(dir, "seen.pid")), "the program ran and left its escapee");
  await noSurvivor(pidsIn(dir), "hcp run");
});

test("a double-forked escapee holding the run's pipes, its first thread gone (its fd folder empty), is found by the pipes and killed", async () => {
  const dir = tempDir("hcp-watch-pids-");
  const root = programPack("zombie", THREAD_ESCAPEE, { holder: ["holder", join(dir, "holder.pid")] });
  const r = await hcp(["run", root, "holder"], { env: isolatedEnv(), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(join(dir, "holder.pid")), "the program ran and left its escapee");
  await noSurvivor(pidsIn(dir), "hcp run");
});
