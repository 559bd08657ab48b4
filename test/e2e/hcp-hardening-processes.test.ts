// No descendant outlives its run (§6.4): TERM-ignoring grandchildren, setsid escapees and double forks,
// after a normal exit, a timeout and a cancellation.

// What /proc alone shows: where hcp could make cgroups, this file runs where it cannot (test/without-cgroups.ts).
import "../without-cgroups.js";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { alive, eventually } from "../runtime/support.js";
import { HCP, hcp, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { trustBeforeRun } from "./helpers.js";

/** A sleeper that ignores SIGTERM: only SIGKILL ends it. */
const SLEEPER = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);";

/**
 * The wrapped program: `escaper MODE PIDFILE [MS]` leaves a TERM-ignoring sleeper behind, writes its pid
 * to PIDFILE, then exits (after MS ms, default 0).
 *   grandchild   in the program's group, holding no pipe
 *   setsid       in a session of its own, holding the pipes
 *   double-fork  started by an intermediate that setsid()s and exits 300 ms later, holding no pipe (an
 *                intermediate gone within one 25 ms reading of /proc is the limit SECURITY.md states)
 */
function escaper(): string {
  const file = join(tempDir("hcp-escaper-"), "escaper.mjs");
  writeFileSync(
    file,
    `#!/usr/bin/env node
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
const [mode, pidFile, ms = "0"] = process.argv.slice(2);
const sleeper = ${JSON.stringify(SLEEPER)};
const leave = (options) => {
  const child = spawn(process.execPath, ["-e", sleeper], options);
  writeFileSync(pidFile, String(child.pid));
  child.unref();
};
if (mode === "grandchild") leave({ stdio: "ignore" });
else if (mode === "setsid") leave({ stdio: "inherit", detached: true });
else if (mode === "double-fork") {
  const middle = "const { spawn } = require('node:child_process'); const { writeFileSync } = require('node:fs');" +
    "const c = spawn(process.execPath, ['-e', " + JSON.stringify(sleeper) + "], { stdio: 'ignore' }); writeFileSync(process.argv[1], String(c.pid)); setTimeout(() => process.exit(0), 300);";
  spawn(process.execPath, ["-e", middle, pidFile], { stdio: "ignore", detached: true }).unref();
  while (!existsSync(pidFile)) await new Promise((r) => setTimeout(r, 10));
}
await new Promise((r) => setTimeout(r, Number(ms)));
`,
  );
  chmodSync(file, 0o755);
  return file;
}

const MODES = ["grandchild", "setsid", "double-fork"] as const;

/** A pack with one verb per mode, each `MODE PIDFILE MS`, and `slow-*` twins under a 1.5 s timeout. */
function escaperPack(dir: string, ms: number): string {
  const verbs: Record<string, object> = {};
  const policy: Record<string, unknown> = {};
  for (const mode of MODES) {
    verbs[mode] = { description: mode, cli: ["escaper", mode, join(dir, `${mode}.pid`), String(ms)], policy: "read" };
    verbs[`slow-${mode}`] = { description: mode, cli: ["escaper", mode, join(dir, `slow-${mode}.pid`), "60000"], policy: "read" };
    policy[mode] = "read";
    policy[`slow-${mode}`] = { policy: "read", timeout_ms: 1500 };
  }
  return probePack("escapes", verbs, { cliBin: "escaper", wrap: { bin: escaper() } }, { verbs: policy });
}

/** The pid a mode wrote; asserts the file is there (the program really ran). */
function pidOf(dir: string, name: string): number {
  const file = join(dir, `${name}.pid`);
  assert.ok(existsSync(file), `${name}: the program ran and left a sleeper`);
  return Number(readFileSync(file, "utf8"));
}

/** Kills a survivor so a failing test leaves nothing behind, and says whether there was one. */
function survived(pid: number): boolean {
  if (!alive(pid)) return false;
  process.kill(pid, "SIGKILL");
  return true;
}

test("after a normal exit, no descendant survives: TERM-ignoring grandchild, setsid escapee, double fork", async () => {
  const dir = tempDir("hcp-pids-");
  const root = escaperPack(dir, 300);
  const env = isolatedEnv();
  for (const mode of MODES) {
    const r = await hcp(["run", root, mode], { env, timeoutMs: 30_000 });
    assert.equal(r.code, 0, `${mode}: ${r.stderr}`);
    const pid = pidOf(dir, mode);
    // SIGKILL follows SIGTERM by 2 s whatever the pipes do: hcp itself waits for it before exiting.
    assert.ok(await eventually(() => !alive(pid), 1000), `${mode}: sleeper ${pid} outlived hcp run`);
    assert.equal(survived(pid), false);
  }
});

test("after a timeout, no descendant survives, setsid and double-forked ones included", async () => {
  const dir = tempDir("hcp-pids-");
  const root = escaperPack(dir, 0);
  const env = isolatedEnv();
  for (const mode of MODES) {
    const r = await hcp(["run", root, `slow-${mode}`, "--json"], { env, timeoutMs: 30_000 });
    assert.equal(r.code, 124, `${mode}: ${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).timed_out, true);
    const pid = pidOf(dir, `slow-${mode}`);
    assert.ok(await eventually(() => !alive(pid), 1000), `${mode}: sleeper ${pid} outlived the timeout`);
    assert.equal(survived(pid), false);
  }
});

test("after a cancellation (SIGTERM to hcp run), no descendant survives", async () => {
  const dir = tempDir("hcp-pids-");
  const root = escaperPack(dir, 60_000);
  const env = isolatedEnv();
  await trustBeforeRun(HCP, ["run", root], { env });
  for (const mode of MODES) {
    const child = spawn(process.execPath, [HCP, "run", root, mode], { env, stdio: "ignore" });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    assert.ok(await eventually(() => existsSync(join(dir, `${mode}.pid`)), 30_000), `${mode}: the program started`);
    // Let the tree be read once more after the sleeper appeared (it is read every 25 ms).
    await new Promise((r) => setTimeout(r, 200));
    child.kill("SIGTERM");
    const code = await exited;
    assert.notEqual(code, 0, `${mode}: a cancelled run does not succeed`);
    const pid = pidOf(dir, mode);
    assert.ok(await eventually(() => !alive(pid), 1000), `${mode}: sleeper ${pid} outlived the cancellation`);
    assert.equal(survived(pid), false);
  }
});
