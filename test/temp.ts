// Temporary folders for tests: every one a test process makes is under one root of its own, removed
// when the process exits, so a run of the suite leaves nothing behind in the system's temporary folder.
//
// The root goes at exit, not after each test: a test may leave a process that still writes in its folder
// for a moment (an escapee being killed by hcp's watch, a watchdog finishing its sweep), and removing a
// folder under it would race with it. At exit every test and its cleanups are done; a file made during the
// removal is retried over, and a folder that still cannot go is named on stderr (a test never fails for it).
// `rm -rf`, not Node's rmSync: some tests make trees deeper than PATH_MAX, which Node 20's rmSync cannot remove.

import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = mkdtempSync(join(tmpdir(), "rungrad-tests-"));

process.on("exit", () => {
  let stderr = "";
  for (let attempt = 0; attempt < 5; attempt++) {
    const rm = spawnSync("rm", ["-rf", "--", ROOT], { encoding: "utf8" });
    if (rm.status === 0) return;
    stderr = rm.stderr || String(rm.error);
  }
  process.stderr.write(`warning: the tests' temporary folder ${ROOT} was not removed: ${stderr}\n`);
});

/** A new empty folder, named `prefix` + random, removed with the rest when the test process exits. */
export function tempDir(prefix = "tmp-"): string {
  return mkdtempSync(join(ROOT, prefix));
}
