import { test } from "node:test";
import assert from "node:assert/strict";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../src/files.js";
import { tempDir } from "./temp.js";

test("makeDirs creates missing parents with the mode asked, and accepts existing directories", async () => {
  const root = tempDir("makedirs-");
  const deep = join(root, "a", "b", "c");
  await makeDirs(deep, 0o750);
  assert.ok(statSync(deep).isDirectory());
  assert.equal(statSync(join(root, "a")).mode & 0o777, 0o750 & ~process.umask());
  await makeDirs(deep);
});

test("makeDirs fails instead of hanging where Node 20's recursive mkdir loops, and under a file", async () => {
  const started = Date.now();
  await assert.rejects(makeDirs("/proc/no-such-dir/x"), { code: "ENOENT" });
  assert.ok(Date.now() - started < 5000);
  const root = tempDir("makedirs-");
  writeFileSync(join(root, "file"), "");
  await assert.rejects(makeDirs(join(root, "file", "sub")), { code: "ENOTDIR" });
});
