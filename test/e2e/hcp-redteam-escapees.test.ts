// Red team: a burst of calls through `hcp exec`, each leaving a process in a session of its own that holds
// none of the run's pipes. Only the reading of /proc can tell such a process is the run's; reads made for
// the other calls in flight must not hide it (§6.4).

// What /proc alone shows: where hcp could make cgroups, this file runs where it cannot (test/without-cgroups.ts).
import "../without-cgroups.js";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { alive, eventually } from "../runtime/support.js";
import { HCP, tempDir } from "../transports/support.js";
import { isolatedEnv } from "./hardening.js";

const CALLS = 40;

test("hcp exec: 40 calls at once, each leaving a setsid escapee with no pipe of its run, leave no survivor", async () => {
  const root = tempDir("hcp-pack-");
  const script = join(root, "escape.sh");
  // The escapee writes its pid in the working directory; the program lingers so the escapee is its child.
  writeFileSync(script, `#!/bin/sh\nsetsid sh -c 'echo $$ > "esc-$$.pid"; exec sleep 120' </dev/null >/dev/null 2>&1 &\nsleep 1\n`);
  chmodSync(script, 0o755);
  const verbs = { leave: { description: "Leave an escapee.", cli: ["esc"], policy: "read" } };
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "burst", kind: "wrap", cliBin: "esc", wrap: { bin: script }, verbs }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "burst", verbs: { leave: "read" } }));
  writeFileSync(join(root, "HARNESS.md"), "---\nname: burst\ndescription: Test pack.\n---\n\nTest pack.\n");
  const cwd = tempDir("hcp-burst-");
  const child = spawn(process.execPath, [HCP, "exec", root], { cwd, env: isolatedEnv(), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  const closed = new Promise((resolve) => child.on("close", resolve));
  const guard = setTimeout(() => child.kill("SIGKILL"), 120_000);
  // One write: the whole burst arrives at once.
  child.stdin.end(Array.from({ length: CALLS }, (_, i) => JSON.stringify({ id: `c${i}`, pack: "burst", verb: "leave" }) + "\n").join(""));
  await closed;
  clearTimeout(guard);
  assert.equal(out.trim().split("\n").filter((l) => l.includes('"ok":true')).length, CALLS, `every call ran: ${out}${err}`);
  const pidFiles = () => readdirSync(cwd).filter((f) => f.startsWith("esc-"));
  assert.ok(await eventually(() => pidFiles().length === CALLS, 10_000), "not every escapee wrote its pid");
  const escapees = pidFiles().map((f) => Number(readFileSync(join(cwd, f), "utf8")));
  const gone = await eventually(() => escapees.every((pid) => !alive(pid)), 10_000);
  const survivors = escapees.filter(alive);
  for (const pid of survivors) process.kill(pid, "SIGKILL");
  assert.ok(gone, `${survivors.length} of ${CALLS} escapees outlived hcp exec: ${survivors.join(" ")}`);
});
