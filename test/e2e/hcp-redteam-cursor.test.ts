// Red team: the descendant watch skips listing /proc while the kernel's pid cursor (the last field of
// /proc/loadavg) shows no process begun but the runs' own children (src/runtime/pid-cursor.ts). Some kernels and
// sandboxes print a cursor that does not follow new processes (gVisor prints 0; container kernels and LXCFS
// print their own). Here the cursor is frozen by a bind mount in a user and mount namespace of the test's own:
// a setsid escapee holding none of the run's pipes must still be found and killed (§6.4).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { alive, eventually } from "../runtime/support.js";
import { HCP, tempDir } from "../transports/support.js";
import { isolatedEnv } from "./hardening.js";

/** Whether this kernel lets an unprivileged user bind-mount over /proc/loadavg in namespaces of its own. */
function canFreezeCursor(): boolean {
  return spawnSync("unshare", ["-Urm", "sh", "-c", "mount --bind /dev/null /proc/loadavg"], { stdio: "ignore" }).status === 0;
}

test(
  "a pid cursor that does not follow new processes (frozen /proc/loadavg) hides no escapee: a setsid escapee with no pipe of its run is killed",
  { skip: canFreezeCursor() ? false : "this kernel does not let an unprivileged user make user and mount namespaces" },
  async () => {
    const dir = tempDir("hcp-cursor-");
    const frozen = join(dir, "loadavg");
    writeFileSync(frozen, "0.00 0.00 0.00 1/100 0\n");
    const pidFile = join(dir, "escapee.pid");
    const script = join(dir, "escape.sh");
    // The escapee leaves the group and every pipe of the run; the program lingers so the escapee is its child.
    writeFileSync(script, `#!/bin/sh\nsetsid sh -c 'echo $$ > "$1"; exec sleep 120' sh "$1" </dev/null >/dev/null 2>&1 &\nsleep 1\n`);
    chmodSync(script, 0o755);
    const args = { type: "object", properties: { at: { type: "string" } }, required: ["at"] };
    const verbs = { leave: { description: "Leave an escapee.", cli: ["esc", "{{at}}"], args } };
    writeFileSync(join(dir, "surface.json"), JSON.stringify({ id: "frozen", kind: "wrap", cliBin: "esc", wrap: { bin: script }, verbs }));
    writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "frozen", verbs: { leave: "read" } }));
    writeFileSync(join(dir, "HARNESS.md"), "---\nname: frozen\ndescription: Test pack.\n---\n\nTest pack.\n");
    const run = spawnSync(
      "unshare",
      ["-Urm", "sh", "-c", 'mount --bind "$1" /proc/loadavg && shift && exec "$@"', "sh", frozen, process.execPath, HCP, "run", dir, "leave", "--arg", `at=${pidFile}`],
      { env: isolatedEnv(), encoding: "utf8", timeout: 60_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.ok(await eventually(() => { try { return readFileSync(pidFile, "utf8").trim() !== ""; } catch { return false; } }, 10_000), "the escapee did not write its pid");
    const escapee = Number(readFileSync(pidFile, "utf8"));
    const gone = await eventually(() => !alive(escapee), 10_000);
    if (!gone) process.kill(escapee, "SIGKILL");
    assert.ok(gone, `escapee ${escapee} outlived its run under a frozen pid cursor`);
  },
);
