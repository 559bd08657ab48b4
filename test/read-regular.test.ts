// readRegularFile and sha256OfRegularFile: regular files under a cap are read; FIFOs, devices and directories are refused
// without blocking.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileReadError, readRegularFile, sha256OfRegularFile } from "../src/read-regular.js";
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

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

test("sha256OfRegularFile hashes a file read in pieces as the whole of it, and refuses what readRegularFile refuses", () => {
  const root = tempDir("readfile-");
  // Over two pieces of 1 MiB, the last one short; and an empty file.
  const body = randomBytes((2 << 20) + 12345);
  writeFileSync(join(root, "f"), body);
  writeFileSync(join(root, "empty"), "");
  symlinkSync(join(root, "f"), join(root, "link"));
  assert.equal(sha256OfRegularFile(join(root, "f"), 3 << 20), sha(body));
  assert.equal(sha256OfRegularFile(join(root, "link"), 3 << 20), sha(body));
  assert.equal(sha256OfRegularFile(join(root, "empty"), 1), sha(Buffer.alloc(0)));
  assert.throws(() => sha256OfRegularFile(join(root, "f"), 2 << 20), { code: "too_large", reason: "it is larger than the 2 MiB limit" });
  assert.throws(() => sha256OfRegularFile(join(root, "none"), 5), { code: "ENOENT", reason: "no such file" });
  execFileSync("mkfifo", [join(root, "fifo")]);
  symlinkSync("/dev/zero", join(root, "zero"));
  assert.throws(() => sha256OfRegularFile(join(root, "fifo"), 1 << 20), { code: "not_regular", reason: "it is a FIFO, not a regular file" });
  assert.throws(() => sha256OfRegularFile(join(root, "zero"), 1 << 20), { code: "not_regular", reason: "it is a character device, not a regular file" });
  assert.throws(() => sha256OfRegularFile(root, 1 << 20), { code: "not_regular", reason: "it is a directory, not a regular file" });
});
