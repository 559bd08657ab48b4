// Shared by the backpressure and HTTP load red-team tests: a pack whose program logs each real run to runs.log in its
// working folder ("VERB PID"), then prints 1 MiB (mb), sleeps two minutes (nap) or prints one line (mark).

import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { alive } from "../runtime/support.js";
import { tempDir } from "../transports/support.js";

// A shell script, not node: hundreds of runs each start in a millisecond, not in a node start-up. `exec` keeps the
// logged pid the sleeping process's.
const PROGRAM = `#!/bin/sh
echo "$1 $$" >> runs.log
case "$1" in
  nap) exec sleep 120 ;;
  mark) echo marked ;;
  *) head -c 1048576 /dev/zero | tr '\\0' x ;;
esac
`;

/** The pack `bp` with the verbs mb, nap and mark (all read), and these policy limits. */
export function runsPack(limits: Record<string, number> = {}): string {
  const root = tempDir("hcp-runs-pack-");
  const bin = join(root, "bp.sh");
  writeFileSync(bin, PROGRAM);
  chmodSync(bin, 0o755);
  const verbs = { mb: { description: "Print 1 MiB.", cli: ["bp", "mb"] }, nap: { description: "Sleep.", cli: ["bp", "nap"] }, mark: { description: "Print a line.", cli: ["bp", "mark"] } };
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "bp", kind: "wrap", cliBin: "bp", wrap: { bin }, verbs }));
  const policy = { surface_id: "bp", verbs: { mb: "read", nap: "read", mark: "read" }, limits: { max_output_bytes: 2 << 20, ...limits } };
  writeFileSync(join(root, "policy.json"), JSON.stringify(policy));
  writeFileSync(join(root, "HARNESS.md"), "---\nname: bp\ndescription: Test pack.\n---\n\nTest pack.\n");
  return root;
}

/** The runs logged in `cwd`: [verb, pid]. */
export function runsIn(cwd: string): [string, number][] {
  const log = join(cwd, "runs.log");
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split(" "))
    .map(([verb, pid]) => [verb!, Number(pid)] as [string, number]);
}

/**
 * Live processes other than `except` whose environment has HOME=`home`: the children of an hcp given that (isolated)
 * home, and their descendants (a child's environment keeps HOME, §6.4).
 */
export function processesWithHome(home: string, except: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === except) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`HOME=${home}`) && alive(pid)) found.push(pid);
    } catch {
      // gone, or another user's
    }
  }
  return found;
}
