// What /proc alone shows: where hcp could make cgroups, this file runs where it cannot (test/without-cgroups.ts).
import "../without-cgroups.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { setImmediate } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { runProcess } from "../../src/runtime/process/process.js";
import { RuntimeError } from "../../src/runtime/errors.js";
import { PROBE, BASE_ENV, alive, eventually, tempDir } from "./support.js";

const base = { file: PROBE, env: BASE_ENV, timeoutMs: 10_000, maxOutputBytes: 1 << 20 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("argv arrives as given and the environment is exactly the one passed, with the run's mark (HCP_RUN_ID: random, its own per run, never the caller's)", async () => {
  const r = await runProcess({ ...base, args: ["a b", "$(x)", ""] });
  assert.equal(r.exit_code, 0);
  assert.equal(r.signal, null);
  const { HCP_RUN_ID: mark, ...env } = (JSON.parse(r.stdout) as { env: Record<string, string> }).env;
  assert.deepEqual(JSON.parse(r.stdout).argv, ["a b", "$(x)", ""]);
  assert.deepEqual(env, BASE_ENV);
  assert.match(mark!, UUID);
  // A caller's (a pack's) variable of that name does not replace it, and each run has a mark of its own.
  const again = await runProcess({ ...base, env: { ...BASE_ENV, HCP_RUN_ID: mark! }, args: [] });
  const other = (JSON.parse(again.stdout) as { env: Record<string, string> }).env["HCP_RUN_ID"];
  assert.match(other!, UUID);
  assert.notEqual(other, mark);
  assert.equal(r.stdout_bytes, Buffer.byteLength(r.stdout));
  assert.equal(r.stdout_truncated, false);
});

test("exit codes and signals are reported", async () => {
  const r3 = await runProcess({ ...base, args: ["run", "print:bye", "exit:3"] });
  assert.equal(r3.exit_code, 3);
  assert.equal(r3.signal, null);
  assert.equal(r3.stdout, "bye\n");
  const rk = await runProcess({ ...base, args: ["run", "kill:SIGHUP"] });
  assert.equal(rk.exit_code, null);
  assert.equal(rk.signal, "SIGHUP");
  assert.equal(rk.timed_out, false);
});

test("stdin is closed by default and delivered when given", async () => {
  const none = await runProcess({ ...base, args: ["run", "stdin", "print:end"] });
  assert.equal(none.stdout, "end\n");
  const some = await runProcess({ ...base, args: ["run", "stdin"], stdin: "héllo\nworld" });
  assert.equal(some.stdout, "héllo\nworld");
});

test("timeout kills the whole group, grandchild included", async () => {
  const dir = tempDir();
  const pidFile = join(dir, "gc.pid");
  // Long enough for a loaded machine to start node and the grandchild before the timeout fires.
  const r = await runProcess({ ...base, args: ["run", `grandchild:60000:${pidFile}`, "sleep:60000"], timeoutMs: 1500 });
  assert.equal(r.timed_out, true);
  assert.equal(r.signal, "SIGTERM");
  assert.ok(r.duration_ms >= 1500 && r.duration_ms < 30_000, `duration ${r.duration_ms}`);
  const gc = Number(readFileSync(pidFile, "utf8"));
  assert.ok(await eventually(() => !alive(gc)), `grandchild ${gc} survived`);
});

test("a program ignoring SIGTERM is killed with SIGKILL after the grace", async () => {
  // The timeout leaves the program time to install its SIGTERM handler even on a loaded machine.
  const r = await runProcess({ ...base, args: ["run", "ignore-term", "sleep:60000"], timeoutMs: 1500, killGraceMs: 300 });
  assert.equal(r.timed_out, true);
  assert.equal(r.signal, "SIGKILL");
  assert.ok(r.duration_ms >= 1800 && r.duration_ms < 30_000, `duration ${r.duration_ms}`);
});

test("a grandchild holding the pipes after the program exits is killed; the run does not hang", async () => {
  const dir = tempDir();
  const pidFile = join(dir, "gc.pid");
  const r = await runProcess({ ...base, args: ["run", `grandchild:60000:${pidFile}`, "print:done", "exit:0"] });
  assert.equal(r.exit_code, 0);
  assert.equal(r.timed_out, false);
  assert.equal(r.stdout, "done\n");
  assert.ok(r.duration_ms < 30_000, `duration ${r.duration_ms}`);
  const gc = Number(readFileSync(pidFile, "utf8"));
  assert.ok(await eventually(() => !alive(gc)), `grandchild ${gc} survived`);
});

test("a process that left the group but holds the pipes cannot hang the run, and is killed", async () => {
  const dir = tempDir();
  const pidFile = join(dir, "esc.pid");
  const r = await runProcess({ ...base, args: ["run", `escapee:60000:${pidFile}`, "print:done", "exit:0"], killGraceMs: 200 });
  const escapee = Number(readFileSync(pidFile, "utf8"));
  const killed = await eventually(() => !alive(escapee));
  if (!killed) process.kill(escapee, "SIGKILL");
  assert.equal(r.exit_code, 0);
  assert.equal(r.stdout, "done\n");
  assert.ok(r.duration_ms < 30_000, `duration ${r.duration_ms}`);
  assert.ok(killed, `escapee ${escapee} survived`);
});

test("an AbortSignal cancels: the group is killed and the result says cancelled", async () => {
  const dir = tempDir();
  const pidFile = join(dir, "gc.pid");
  const ac = new AbortController();
  // Cancel once the grandchild exists, however slowly the machine starts the program.
  void eventually(() => existsSync(pidFile), 30_000).then(() => ac.abort());
  const r = await runProcess({ ...base, args: ["run", `grandchild:60000:${pidFile}`, "sleep:60000"], signal: ac.signal });
  assert.equal(r.cancelled, true);
  assert.equal(r.timed_out, false);
  assert.equal(r.signal, "SIGTERM");
  const gc = Number(readFileSync(pidFile, "utf8"));
  assert.ok(await eventually(() => !alive(gc)), `grandchild ${gc} survived`);
  await assert.rejects(runProcess({ ...base, args: [], signal: ac.signal }), { code: "cancelled" });
});

test("output is capped per stream, counted past the cap, and memory stays bounded under a 100 MB flood", async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  const before = process.memoryUsage();
  const size = 100 * 1024 * 1024;
  const r = await runProcess({ ...base, args: ["run", `out:${size}`, "err:5000"], maxOutputBytes: 1000, timeoutMs: 30_000 });
  // RSS also holds the chunks read and not yet collected (how many depends on when V8 collects): bounded well under
  // the 100 MB a run keeping its output would hold. What is still held once collected is the output kept: 2 x 1000 bytes.
  const growth = process.memoryUsage().rss - before.rss;
  // A collection frees buffers' memory as V8 sweeps, which may finish after gc() returns (7 MiB still counted once in
  // CI): what the run keeps is what is still held after a few collections, each given a turn of the event loop.
  const keptBound = 4 * 1024 * 1024;
  let kept = Infinity;
  for (let i = 0; i < 5 && kept >= keptBound; i++) {
    await setImmediate();
    gc();
    kept = process.memoryUsage().arrayBuffers - before.arrayBuffers;
  }
  assert.equal(r.exit_code, 0);
  assert.equal(r.stdout_bytes, size);
  assert.equal(r.stdout.length, 1000);
  assert.equal(r.stdout_truncated, true);
  assert.equal(r.stderr_bytes, 5000);
  assert.equal(r.stderr.length, 1000);
  assert.equal(r.stderr_truncated, true);
  assert.ok(growth < 64 * 1024 * 1024, `RSS grew by ${growth} bytes`);
  assert.ok(kept < keptBound, `${kept} bytes of buffers are still held after the run`);
});

test("spawn failures are typed errors with clear messages", async () => {
  await assert.rejects(runProcess({ ...base, file: "/nonexistent/prog", args: [] }), (e: unknown) => {
    assert.ok(e instanceof RuntimeError);
    assert.equal(e.code, "spawn_failed");
    assert.match(e.message, /cannot start "\/nonexistent\/prog": .*ENOENT/);
    return true;
  });
  const dir = tempDir();
  const file = join(dir, "noexec.mjs");
  writeFileSync(file, "#!/usr/bin/env node\n");
  chmodSync(file, 0o644);
  await assert.rejects(runProcess({ ...base, file, args: [] }), { code: "spawn_failed", message: /EACCES/ });
});

test("the output cap never splits a UTF-8 character: a cut character is dropped whole", async () => {
  for (const [text, cap, kept] of [
    ["éééé", 5, "éé"],
    ["€€", 4, "€"],
    ["😀😀", 7, "😀"],
    ["a😀", 2, "a"],
  ] as const) {
    const r = await runProcess({ ...base, args: ["run", `print:${text}`], maxOutputBytes: cap });
    assert.equal(r.stdout_truncated, true);
    assert.equal(r.stdout, kept, `${text} cut at ${cap}`);
    assert.ok(!r.stdout.includes("\ufffd"));
  }
});
