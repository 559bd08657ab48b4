// Red team against the descendant watch's ties (§6.4, SECURITY.md "Processes"): the watch takes a process for the run's
// by an id (its parent's pid, its session's id, the run's group), and an id is given to another process once it is
// free. Each test has the run's program free such an id, an unrelated process of the user take it, and asserts that
// hcp left that process running. In a pid namespace of the test's own (where the next id can be set), skipped where
// the kernel does not let this user make one.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { fixture, trustBeforeRunSync } from "./helpers.js";
import { HCP, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack } from "./hardening.js";

/** unshare's flags: a user, pid and mount namespace of the test's own, which ends with its first process. */
const NAMESPACE = ["-Urpmf", "--mount-proc", "--kill-child"];

/** test/fixtures/bin/stale-tie.py: the run's program, which frees an id the watch ties processes to. */
const STALE_TIE = fixture("bin/stale-tie.py");
/** test/fixtures/bin/pid-victim.py: the user's unrelated process, which takes that id. */
const PID_VICTIM = fixture("bin/pid-victim.py");

/**
 * Starts the victim, then `hcp run` of a pack running stale-tie.py MODE, in a namespace of the test's own; returns the
 * state of the victim's process once hcp has exited ("S": sleeping as it should; "gone", "T": killed or stopped by hcp).
 */
function victimAfterRun(t: TestContext, mode: "parent" | "group"): string | undefined {
  const dir = tempDir("hcp-watch-tie-");
  const target = join(dir, "target");
  const victim = join(dir, "victim.pid");
  const root = probePack("tie", { tie: { description: "tie", cli: ["prog", mode, target, victim], policy: "read" } }, { cliBin: "prog", wrap: { bin: STALE_TIE } }, { verbs: { tie: "read" } });
  const env = { ...isolatedEnv(), NODE: process.execPath, HCP, ROOT: root, VICTIM: PID_VICTIM, MODE: mode, TARGET: target, VICTIM_PID: victim };
  trustBeforeRunSync(HCP, ["run", root], { env });
  if (spawnSync("unshare", [...NAMESPACE, "sh", "-c", "echo 1 > /proc/sys/kernel/ns_last_pid"], { env }).status !== 0) {
    t.skip("this kernel does not let this user make a user, pid and mount namespace and set its next pid");
    return undefined;
  }
  const inside = `"$VICTIM" "$MODE" "$TARGET" "$VICTIM_PID" </dev/null >/dev/null 2>&1 &
"$NODE" "$HCP" run "$ROOT" tie >/dev/null || exit 8
sleep 0.3
pid=$(cat "$VICTIM_PID") || exit 9
state=$(sed 's/.*) //' /proc/$pid/stat 2>/dev/null | cut -d' ' -f1)
echo "victim state \${state:-gone}"`;
  const r = spawnSync("unshare", [...NAMESPACE, "sh", "-c", inside], { env, encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  const m = /victim state (\S+)/.exec(r.stdout);
  assert.ok(m, r.stdout + r.stderr);
  return m[1];
}

test("hcp run: a process whose parent took the pid of a run's process the watch knows, gone since (an unrelated process of the user's), is left running", (t) => {
  const state = victimAfterRun(t, "parent");
  if (state !== undefined) assert.equal(state, "S", "hcp killed or stopped an unrelated process");
});

test("hcp run: an unrelated process that took the id of the run's group (emptied while the program stopped hcp in its kill grace) and leads a group and session of its own is left running", (t) => {
  const state = victimAfterRun(t, "group");
  if (state !== undefined) assert.equal(state, "S", "hcp killed or stopped an unrelated process");
});
