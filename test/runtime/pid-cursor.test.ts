// The pid cursor the descendant watch relies on to skip listing /proc (§6.4): on this kernel, every new process
// takes an id after the last one given out, and the cursor shows it; ids wrap around at pid_max.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { givenOut, lastPid, onlyKnown } from "../../src/runtime/pid-cursor.js";

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

test("ids given out wrap around at pid_max; only known ids since the cursor let a listing be skipped", () => {
  assert.equal(givenOut(101, 100, 105), true);
  assert.equal(givenOut(100, 100, 105), false);
  assert.equal(givenOut(106, 100, 105), false);
  // Wrapped: from 32760 on to 5.
  assert.equal(givenOut(32765, 32760, 5), true);
  assert.equal(givenOut(3, 32760, 5), true);
  assert.equal(givenOut(6, 32760, 5), false);
  assert.equal(givenOut(32760, 32760, 5), false);
  // Nothing given out since: nothing can have begun.
  assert.equal(givenOut(7, 7, 7), false);
  assert.equal(onlyKnown(7, 7, new Set()), true);
  // Every id since is known: true; one unknown, a wrap, or too many to check: list.
  assert.equal(onlyKnown(100, 103, new Set([101, 102, 103])), true);
  assert.equal(onlyKnown(100, 103, new Set([101, 103])), false);
  assert.equal(onlyKnown(32760, 5, new Set([32761, 1, 2, 3, 4, 5])), false);
  assert.equal(onlyKnown(100, 1000, new Set(Array.from({ length: 900 }, (_, i) => 101 + i))), false);
});
