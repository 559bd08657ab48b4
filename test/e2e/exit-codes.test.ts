// The exit-code table of docs/exit-codes.md where it is about stopping and refusing: SIGINT 130 and SIGTERM 143
// from `hcp run` (with the child's group killed), "already exists" 2 in both programs, a repeated --arg 1.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rungrad, trustBeforeRun } from "./helpers.js";
import { alive } from "../runtime/support.js";
import { HCP, PROBE_PACK, hcp, tempDir } from "../transports/support.js";
import { isolatedEnv } from "./hardening.js";

for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  test(`hcp run stopped by ${sig} exits ${code} and kills the verb's whole process group`, { timeout: 60_000 }, async () => {
    const cwd = tempDir("hcp-run-signal-");
    const env = isolatedEnv();
    await trustBeforeRun(HCP, ["run", PROBE_PACK], { cwd, env });
    const child = spawn(process.execPath, [HCP, "run", PROBE_PACK, "sleeper"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const pidFile = (name: string) => join(cwd, name);
    while (!existsSync(pidFile("grandchild.pid")) || readFileSync(pidFile("grandchild.pid"), "utf8").trim() === "") await new Promise((r) => setTimeout(r, 20));
    child.kill(sig);
    const exit = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(exit, code, stderr);
    assert.match(stderr, /^Error: verb "sleeper" was cancelled/);
    const grandchild = Number(readFileSync(pidFile("grandchild.pid"), "utf8"));
    for (let i = 0; i < 100 && alive(grandchild); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(!alive(grandchild), "the grandchild outlived hcp");
  });
}

test("a repeated --arg name is a usage error (exit 1), and nothing runs", async () => {
  const r = await hcp(["run", PROBE_PACK, "echo", "--arg", "message=a", "--arg", "message=b"], { env: isolatedEnv() });
  assert.deepEqual([r.code, r.stdout, r.stderr], [1, "", `Error: --arg message is given more than once (an array is one JSON value: --arg message:='["a","b"]')\n`]);
});

test('"already exists" is exit 2 in both programs', async () => {
  const dir = tempDir("exists-");
  mkdirSync(join(dir, "demo"));
  writeFileSync(join(dir, "demo", "keep"), "mine\n");
  const scaffold = await rungrad(["new", "demo", "--dir", dir]);
  assert.equal(scaffold.code, 2, scaffold.stderr);
  const out = join(dir, "pack");
  const first = await hcp(["init", "--from-manifest", "examples/manifests/rgref.json", "--out", out], { env: isolatedEnv() });
  assert.equal(first.code, 0, first.stderr);
  const again = await hcp(["init", "--from-manifest", "examples/manifests/rgref.json", "--out", out], { env: isolatedEnv() });
  assert.equal(again.code, 2, again.stderr);
  assert.match(again.stderr, /^Error: .*already exists/);
});

test("a path through a regular file is refused in words: no Node error code or syscall text reaches the user", async () => {
  const file = join(tempDir("notdir-"), "file");
  writeFileSync(file, "x\n");
  const runs = [
    await rungrad(["new", "demo", "--dir", file]),
    await rungrad(["skill", "examples/manifests/rgref.json", "--out", file]),
    await rungrad(["manifest", "validate", join(file, "m.json")]),
    await hcp(["init", "--from-manifest", "examples/manifests/rgref.json", "--out", join(file, "pack")], { env: isolatedEnv() }),
    await hcp(["init", "--from-manifest", join(file, "m.json"), "--out", join(tempDir(), "pack")], { env: isolatedEnv() }),
  ];
  for (const r of runs) {
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^Error: /);
    assert.doesNotMatch(r.stderr, /\bE[A-Z]{3,}\b|scandir|open '|mkdir '/, r.stderr);
    assert.match(r.stderr, /not a directory/, r.stderr);
  }
});
