// For the tests of what hcp finds through /proc alone (the watch, the run's mark, the watchdog's sweep). Where hcp can
// make cgroups (run-cgroup.ts: root, as the tests run in CI, or a delegated cgroup), every process of a run is born in
// the run's cgroup and killed with it, so those tests would pass whatever the watch does. A test file that imports this
// module first (`import "../without-cgroups.js";`, before any other module runs) runs itself again where no cgroup can
// be made: in a mount namespace of its own whose cgroup v2 hierarchies are read-only (which hcp takes for none). That
// takes root; elsewhere the file runs as it is.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { writableCgroup2Mounts } from "../src/runtime/process/run-cgroup.js";

const INSIDE = "HCP_TEST_WITHOUT_CGROUPS";

/** Runs this test file again where hcp can make no cgroup (unless it is there already, or that needs what is not here). */
function withoutCgroups(): void {
  // `node --test dist/test/` also runs this module as a file of its own: it has no test to run again.
  if (process.argv[1]?.endsWith("without-cgroups.js")) return;
  if (process.env[INSIDE] === "1" || process.platform !== "linux" || process.getuid?.() !== 0) return;
  const mounts = writableCgroup2Mounts(readFileSync("/proc/self/mountinfo", "latin1")).map((mount) => mount.point);
  if (mounts.length === 0) return;
  const script = 'while [ "$1" != -- ]; do mount -o remount,bind,ro "$1" || exit 125; shift; done; shift; exec "$@"';
  const again = spawnSync(
    "unshare",
    ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh", ...mounts, "--", process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    { stdio: "inherit", env: { ...process.env, [INSIDE]: "1" } },
  );
  process.exit(again.status ?? 1);
}

withoutCgroups();
