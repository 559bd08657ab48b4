// readRegularFile: regular files under a cap are read; FIFOs, devices and directories are refused without blocking.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileReadError, readRegularFile } from "../src/read-regular.js";
import { tempDir } from "./temp.js";

test("readRegularFile reads a regular file, through a link too, up to its size cap", () => {
  const root = tempDir("readfile-");
  writeFileSync(join(root, "f"), "hello");
  symlinkSync(join(root, "f"), join(root, "link"));
  assert.equal(readRegularFile(join(root, "f"), 5).toString(), "hello");
  assert.equal(readRegularFile(join(root, "link"), 5).toString(), "hello");
  assert.throws(() => readRegularFile(join(root, "f"), 4), (e: unknown) => e instanceof FileReadError && e.code === "too_large" && /larger than the 4 bytes limit/.test(e.reason));
  // a sparse 11 MiB file: refused from its size, before any byte is read
  truncateSync(join(root, "f"), 11 << 20);
  assert.throws(() => readRegularFile(join(root, "f"), 10 << 20), { code: "too_large", reason: "it is larger than the 10 MiB limit" });
  assert.throws(() => readRegularFile(join(root, "none"), 5), { code: "ENOENT", reason: "no such file" });
});

test("readRegularFile refuses a FIFO, a device and a directory without blocking or reading them", () => {
  const root = tempDir("readfile-");
  execFileSync("mkfifo", [join(root, "fifo")]);
  symlinkSync("/dev/zero", join(root, "zero"));
  const started = Date.now();
  assert.throws(() => readRegularFile(join(root, "fifo"), 1 << 20), { code: "not_regular", reason: "it is a FIFO, not a regular file" });
  assert.throws(() => readRegularFile(join(root, "zero"), 1 << 20), { code: "not_regular", reason: "it is a character device, not a regular file" });
  assert.throws(() => readRegularFile(root, 1 << 20), { code: "not_regular", reason: "it is a directory, not a regular file" });
  assert.ok(Date.now() - started < 5000);
});
