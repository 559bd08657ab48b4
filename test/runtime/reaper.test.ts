// The reaper's signals to a run's process group (§6.4): sent while the group has members, never once it was
// found empty, so that a later group given the same id (the pid reused) is never signalled for this run.

// What /proc alone shows: where hcp could make cgroups, this file runs where it cannot (test/without-cgroups.ts).
import "../without-cgroups.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Reaper } from "../../src/runtime/process/reaper.js";
import { eventually } from "./support.js";

test("a run's group found empty is not signalled again: a later group with its id is another's", async () => {
  const reaper = new Reaper(500, () => {});
  const child = spawn("/bin/sh", ["-c", "exit 0"], { detached: true, stdio: "ignore" });
  reaper.started(child.pid!);
  await once(child, "exit");
  const group = -child.pid!;
  const signalled: (string | number | undefined)[] = [];
  const kill = process.kill.bind(process);
  process.kill = (pid: number, signal?: string | number) => {
    if (pid === group) signalled.push(signal);
    return kill(pid, signal);
  };
  try {
    // The child's exit: SIGTERM to its group, which has no member left (ESRCH).
    reaper.exited();
    // The look for pipe holders a moment later, and a cancellation after it: the group is not signalled again.
    reaper.end(true);
    reaper.end(true);
  } finally {
    process.kill = kill;
    reaper.finished();
  }
  assert.ok(signalled.length === 1 && signalled.every((s) => s === "SIGTERM"), `signalled: ${signalled.join(", ")}`);
});

test("a group with a member left after its leader exited is still signalled, and killed at the deadline", async () => {
  let killed = false;
  const reaper = new Reaper(300, () => (killed = true));
  // The leader exits at once; a member of its group ignores SIGTERM and lives on.
  const child = spawn("/bin/sh", ["-c", "(trap '' TERM; sleep 30) & exit 0"], { detached: true, stdio: "ignore" });
  reaper.started(child.pid!);
  await once(child, "exit");
  reaper.exited();
  reaper.finished();
  assert.ok(await eventually(() => killed, 10_000), "SIGKILL was not sent to the group at the deadline");
});
