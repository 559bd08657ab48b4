// Where a run's cgroup is made (run-cgroup.ts): hcp's own cgroup v2, read from /proc/self/cgroup and /proc/self/mountinfo.

import { test } from "node:test";
import assert from "node:assert/strict";
import { cgroupFolder } from "../../src/runtime/process/run-cgroup.js";

const UNIFIED = "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw";
const PURE = "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot";

test("a run's cgroup is made in the process's own cgroup v2, wherever its hierarchy is mounted", () => {
  const own = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome.scope\n";
  assert.equal(cgroupFolder(own, PURE), "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome.scope");
  // A hybrid system: cgroup v1 controllers beside the v2 hierarchy at unified/.
  assert.equal(cgroupFolder("9:name=systemd:/\n4:memory:/x\n0::/\n", `25 24 0:22 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n${UNIFIED}`), "/sys/fs/cgroup/unified");
  // A mount of part of the hierarchy (a container's, without a cgroup namespace): the path is taken from its root.
  assert.equal(cgroupFolder("0::/docker/abc/inner\n", "50 40 0:30 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw"), "/sys/fs/cgroup/inner");
  assert.equal(cgroupFolder("0::/docker/abc\n", "50 40 0:30 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw"), "/sys/fs/cgroup");
  // Mountinfo writes a space in a path as \040.
  assert.equal(cgroupFolder("0::/a\n", "50 40 0:30 / /mnt/cgroup\\040two rw - cgroup2 none rw"), "/mnt/cgroup two/a");
});

test("no cgroup is taken where none can be made: cgroup v1 alone, a read-only hierarchy, a mount that does not show it, a removed cgroup", () => {
  assert.equal(cgroupFolder("4:memory:/x\n1:name=systemd:/\n", "25 24 0:22 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory"), undefined);
  assert.equal(cgroupFolder("0::/\n", "40 30 0:37 / /sys/fs/cgroup/unified ro,relatime - cgroup2 cgroup2 rw"), undefined);
  assert.equal(cgroupFolder("0::/elsewhere\n", "50 40 0:30 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw"), undefined);
  assert.equal(cgroupFolder("0::/docker/abcdef\n", "50 40 0:30 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw"), undefined);
  assert.equal(cgroupFolder("0::/app.scope (deleted)\n", PURE), undefined);
  assert.equal(cgroupFolder("0::/\n", ""), undefined);
});
