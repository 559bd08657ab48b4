// Red team: a run's program that leaves a process behind the quickest way a shell knows, `(setsid CMD &)`: a double
// fork whose middle process exits at once, so the escapee has lost its parent, leads a session of its own and holds
// none of the run's pipes before hcp's watch reads the tree (every 25 ms). Nothing /proc shows of its place ties it to
// the run; the run's mark in its environment (HCP_RUN_ID, src/runtime/process/run-mark.ts) does, for hcp at the run's
// end and for the watchdog once hcp is killed. A process of the test's carrying another mark is never signalled.

// What /proc alone shows: where hcp could make cgroups, this file runs where it cannot (test/without-cgroups.ts).
import "../without-cgroups.js";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { hcp as runHcp, HCP, mcpClient, tempDir } from "../transports/support.js";
import { alive, eventually } from "../runtime/support.js";
import { trustBeforeRunSync } from "./helpers.js";
import { isolatedEnv } from "./hardening.js";

/**
 * `vanish` leaves the escapee (its pid, written by the middle process before it exits, in escapee.pid) and prints ok.
 * `vanish-kill` leaves one that ignores SIGTERM, then kills hcp (its parent) at once, and exits.
 */
const SCRIPT = `#!/bin/sh
trap_term=
[ "$1" = vanish-kill ] && trap_term='trap "" TERM;'
(setsid sh -c "$trap_term exec sleep 300" </dev/null >/dev/null 2>&1 & echo $! > escapee.tmp && mv escapee.tmp escapee.pid)
[ "$1" = vanish-kill ] && kill -KILL $PPID
echo ok
`;

function vanishPack(): string {
  const root = tempDir("hcp-pack-");
  writeFileSync(join(root, "vanish.sh"), SCRIPT);
  chmodSync(join(root, "vanish.sh"), 0o755);
  const verbs = {
    vanish: { description: "Leave an escapee by a double fork and exit.", cli: ["vanish", "vanish"], policy: "read" },
    "vanish-kill": { description: "Leave an escapee by a double fork, kill hcp and exit.", cli: ["vanish", "vanish-kill"], policy: "read" },
  };
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "vanish", kind: "wrap", cliBin: "vanish", wrap: { bin: "./vanish.sh" }, verbs }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "vanish", verbs: { vanish: "read", "vanish-kill": "read" } }));
  writeFileSync(join(root, "HARNESS.md"), "---\nname: vanish\ndescription: Test pack.\n---\n\nTest pack.\n");
  return root;
}

const PACK = vanishPack();

/** The escapee's pid, once the run's program has written it in `cwd`. */
async function escapeeIn(cwd: string, stderr: () => string): Promise<number> {
  const file = join(cwd, "escapee.pid");
  assert.ok(await eventually(() => existsSync(file), 30_000), `the verb left its escapee: ${stderr()}`);
  return Number(readFileSync(file, "utf8"));
}

/** A sleeper of the test's in a session of its own, carrying a mark of no run's: never signalled. */
function bystander(): ChildProcess {
  return spawn("sleep", ["300"], { detached: true, stdio: "ignore", env: { HCP_RUN_ID: randomUUID() } });
}

async function assertGone(escapee: number, stranger: ChildProcess, what: string): Promise<void> {
  const gone = await eventually(() => !alive(escapee), 15_000);
  if (!gone) process.kill(escapee, "SIGKILL");
  assert.ok(gone, `${what}: the escapee ${escapee} outlived the run`);
  assert.ok(alive(stranger.pid!), `${what}: a process carrying another mark was not signalled`);
}

const exec = (verb: string) => JSON.stringify({ id: 1, pack: "vanish", verb }) + "\n";

/**
 * `attack` over each way in, each in a working folder and home of its own, with a bystander of the test's carrying
 * another mark (killed at the end).
 */
async function overEachWay(attack: (way: "hcp run" | "hcp exec" | "hcp serve --mcp", cwd: string, env: NodeJS.ProcessEnv, stranger: ChildProcess) => Promise<void>): Promise<void> {
  const stranger = bystander();
  try {
    for (const way of ["hcp run", "hcp exec", "hcp serve --mcp"] as const) await attack(way, tempDir("hcp-vanish-"), isolatedEnv(), stranger);
  } finally {
    stranger.kill("SIGKILL");
  }
}

test("attack: a run's program that leaves an escapee by `(setsid CMD &)` and exits at once (its parent gone, a session of its own, no pipe of the run, before hcp's first reading) leaves no survivor: hcp run, hcp exec, hcp serve --mcp", () =>
  overEachWay(async (way, cwd, env, stranger) => {
    if (way === "hcp serve --mcp") {
      const { client, stderr } = await mcpClient([PACK], { cwd, env });
      try {
        const r = (await client.callTool({ name: "vanish_vanish", arguments: {} })) as { isError?: boolean; content: { text: string }[] };
        assert.ok(!r.isError, `${way}: ${JSON.stringify(r)}`);
        await assertGone(await escapeeIn(cwd, stderr), stranger, way);
      } finally {
        await client.close();
      }
      return;
    }
    const args = way === "hcp run" ? ["run", PACK, "vanish"] : ["exec", PACK];
    const r = await runHcp(args, { cwd, env, ...(way === "hcp exec" ? { stdin: exec("vanish") } : {}) });
    assert.equal(r.code, 0, `${way}: ${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /ok/);
    await assertGone(await escapeeIn(cwd, () => r.stderr), stranger, way);
  }));

test("attack: a run's program that leaves a TERM-proof escapee by `(setsid CMD &)` and kills hcp at once (before hcp's watch can see it): the watchdog finds the escapee by its mark and kills it: hcp run, hcp exec, hcp serve --mcp", () =>
  overEachWay(async (way, cwd, env, stranger) => {
    let child: ChildProcess;
    let client: Client | undefined;
    if (way === "hcp serve --mcp") {
      const transport = new StdioClientTransport({ command: process.execPath, args: [HCP, "serve", "--mcp", PACK], cwd, env: env as Record<string, string>, stderr: "ignore" });
      client = new Client({ name: "hcp-test", version: "1.0.0" });
      await client.connect(transport);
      // hcp dies with the call in flight: it is never answered.
      client.callTool({ name: "vanish_vanish-kill", arguments: {} }).catch(() => {});
      child = { pid: transport.pid! } as ChildProcess;
    } else {
      const args = way === "hcp run" ? ["run", PACK, "vanish-kill"] : ["exec", PACK];
      trustBeforeRunSync(HCP, args, { cwd, env });
      child = spawn(process.execPath, [HCP, ...args], { cwd, env, stdio: ["pipe", "ignore", "ignore"] });
      child.stdin!.on("error", () => {});
      // stdin stays open: hcp must not end because its input did.
      child.stdin!.write(way === "hcp exec" ? exec("vanish-kill") : "");
    }
    try {
      const escapee = await escapeeIn(cwd, () => "");
      assert.ok(await eventually(() => !alive(child.pid!), 30_000), `${way}: the run's program killed hcp`);
      await assertGone(escapee, stranger, way);
    } finally {
      await client?.close();
    }
  }));
