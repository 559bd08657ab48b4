// The kernel's counters the descendant watch relies on (§6.4): the pid cursor, which tells a new process that took a
// gone one's id, and the fork count, which tells whether anything has begun since a listing of /proc.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync } from "node:fs";
import { forksSoFar } from "../../src/runtime/process/fork-count.js";
import { givenOut, lastPid } from "../../src/runtime/process/pid-cursor.js";

const linux = existsSync("/proc/loadavg");

test("each new process takes an id after the cursor, and the cursor moves to it", { skip: !linux && "no /proc" }, async () => {
  for (let i = 0; i < 5; i++) {
    const before = lastPid();
    assert.notEqual(before, undefined, "the cursor can be read");
    const child = spawn("/bin/sh", ["-c", "exit 0"], { stdio: "ignore" });
    const after = lastPid()!;
    assert.notEqual(after, before, "the cursor moved");
    assert.ok(givenOut(child.pid!, before!, after), `pid ${child.pid} is after ${before}, up to ${after}`);
    await once(child, "exit");
  }
});

test("ids given out wrap around at pid_max", () => {
  assert.equal(givenOut(101, 100, 105), true);
  assert.equal(givenOut(100, 100, 105), false);
  assert.equal(givenOut(106, 100, 105), false);
  // Wrapped: from 32760 on to 5.
  assert.equal(givenOut(32765, 32760, 5), true);
  assert.equal(givenOut(3, 32760, 5), true);
  assert.equal(givenOut(6, 32760, 5), false);
  assert.equal(givenOut(32760, 32760, 5), false);
  // Nothing given out since: no id is new.
  assert.equal(givenOut(7, 7, 7), false);
});

test("every process made is counted, and a process counted is listed in /proc until it is reaped", { skip: !linux && "no /proc" }, async () => {
  for (let i = 0; i < 5; i++) {
    const before = forksSoFar();
    assert.notEqual(before, undefined, "the count can be read");
    const child = spawn("/bin/sh", ["-c", "exit 0"], { stdio: "ignore" });
    const after = forksSoFar()!;
    assert.ok(after > before!, `the count moved: ${before} to ${after}`);
    assert.ok(readdirSync("/proc").includes(String(child.pid)), `pid ${child.pid} is listed once counted`);
    await once(child, "exit");
  }
});
