// Red team: processes that outlive hcp. Each test starts a verb that leaves a setsid escapee behind, ends hcp
// the way a terminal or a supervisor would, and asserts no process of the run is left.

// What /proc alone shows: where hcp could make cgroups, this file runs where it cannot (test/without-cgroups.ts).
import "../without-cgroups.js";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { alive, eventually } from "../runtime/support.js";
import { HCP, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { trustBeforeRun } from "./helpers.js";

/** A verb whose program writes its pid, leaves an escapee in a session of its own (pid written too), and sleeps. */
const ESCAPES = probePack(
  "hup",
  { stay: { description: "Leave an escapee and sleep.", cli: ["probe", "run", "escapee:60000:escapee.pid", "pid:child.pid", "sleep:60000"], policy: "read" } },
  {},
  { verbs: { stay: "read" } },
);

const INIT =
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }) +
  "\n" +
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) +
  "\n";

const ways = [
  { name: "hcp run", args: ["run", ESCAPES, "stay"], input: "" },
  { name: "hcp exec", args: ["exec", ESCAPES], input: JSON.stringify({ id: "a", pack: "hup", verb: "stay" }) + "\n" },
  { name: "hcp serve --mcp", args: ["serve", "--mcp", ESCAPES], input: INIT + JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "hup_stay", arguments: {} } }) + "\n" },
];

/** How a terminal or a supervisor ends hcp, and the exit code that says so. */
const stops = [
  { signal: "SIGHUP", why: "the terminal closed", code: 129 },
  { signal: "SIGQUIT", why: "Ctrl-\\ at the terminal", code: 131 },
] as const;

for (const { signal: stop, why, code: exitCode } of stops) {
  for (const way of ways) {
    test(`${way.name}: ${stop} (${why}) kills the run's group and its setsid escapee, answers what is in flight, exits ${exitCode}`, async () => {
      const cwd = tempDir("hcp-hup-");
      const env = isolatedEnv();
      await trustBeforeRun(HCP, way.args, { cwd, env });
      const child = spawn(process.execPath, [HCP, ...way.args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
      child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
      child.stdin.on("error", () => {});
      // stdin stays open: the end of input must not be what stops it.
      child.stdin.write(way.input);
      const closed = new Promise<number | string | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
      const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
      const pidFiles = ["child.pid", "escapee.pid"].map((f) => join(cwd, f));
      assert.ok(await eventually(() => pidFiles.every((f) => existsSync(f)), 30_000), `the verb started: ${err}`);
      const pids = pidFiles.map((f) => Number(readFileSync(f, "utf8")));
      // Let /proc be read once more after the escapee appeared (every 25 ms).
      await new Promise((r) => setTimeout(r, 200));
      child.kill(stop);
      const code = await closed;
      clearTimeout(guard);
      const left = () => pids.filter((p) => alive(p));
      const gone = await eventually(() => left().length === 0, 10_000);
      for (const p of left()) process.kill(p, "SIGKILL");
      assert.ok(gone, `${way.name}: processes of the run outlived ${stop}`);
      assert.equal(code, exitCode, err);
      assert.doesNotMatch(err, /\n\s+at /);
      if (way.name === "hcp exec") assert.match(out, /"id":"a","ok":false,"error":\{"code":"cancelled"/);
      if (way.name === "hcp serve --mcp") assert.match(out, /"id":2/);
    });
  }
}
