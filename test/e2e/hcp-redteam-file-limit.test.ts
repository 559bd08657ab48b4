// Calls that run hcp out of file descriptors (many at once under a low `ulimit -n`: each run takes its pipes) must
// each be answered, as a program that could not start, never end the server with the calls in flight. Node makes no
// pipes for a child it cannot start for want of descriptors (EMFILE) and says so in an 'error' event a tick later:
// hcp read the missing pipes at once, failed the call as an internal error, and the event, heard by nobody, ended it.
// Spawns the built hcp under `sh -c 'ulimit -n N && exec node …'`, at limits from where nothing can start to where all
// can, since how many descriptors Node holds before the first call differs between machines.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { hcpCommand, mcpClient, serveHttp, tempDir } from "../transports/support.js";
import { run, writeEchoPack } from "./helpers.js";
import { isolatedEnv } from "./openapi-support.js";

const LIMITS = [24, 28, 32, 36, 40, 48, 64, 128];
const CALLS = 40;

const echoPack = () => writeEchoPack(join(tempDir("hcp-file-limit-"), "echo"));

/** How many answers had each outcome. */
function tally(outcomes: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

/** What a call's answer was: ok, or its error's code and why (EMFILE, hcp's watchdog not started, else its message). */
function outcomeOf(error: { code?: string; message?: string } | undefined): string {
  if (error === undefined) return "ok";
  const why = /EMFILE|as many files open/.test(error.message ?? "") ? "EMFILE" : /watchdog/.test(error.message ?? "") ? "watchdog" : (error.message ?? "");
  return `${error.code}: ${why}`;
}

/** Every outcome is a run or a program that could not start, saying why; some could not, and some ran. */
function assertAnsweredAsNotStarted(byLimit: Map<number, Record<string, number>>): void {
  const seen = new Set([...byLimit.values()].flatMap((t) => Object.keys(t)));
  const report = JSON.stringify([...byLimit]);
  for (const outcome of seen) assert.ok(["ok", "spawn_failed: EMFILE", "spawn_failed: watchdog"].includes(outcome), `${outcome}: ${report}`);
  assert.ok(seen.has("spawn_failed: EMFILE"), `no limit ran hcp out of file descriptors: ${report}`);
  assert.ok(seen.has("ok"), `no call ran: ${report}`);
}

test("attack: calls that run hcp out of file descriptors (40 at once under ulimit -n 24 to 128) are each answered spawn_failed naming EMFILE; hcp exec and hcp serve --mcp never end with an internal error, and go on", async () => {
  const pack = echoPack();
  const env = isolatedEnv();
  const cwd = tempDir("hcp-file-limit-cwd-");

  const exec = new Map<number, Record<string, number>>();
  const requests = Array.from({ length: CALLS }, (_, id) => JSON.stringify({ id, pack: "echo", verb: "say", args: {} })).join("\n") + "\n";
  for (const limit of LIMITS) {
    const limited = hcpCommand(["exec", pack, "--concurrency", "16"], limit);
    const r = await run(limited.command, limited.args, { env, cwd, stdin: requests, timeoutMs: 60_000 });
    assert.equal(r.code, 0, `ulimit -n ${limit}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /internal error/, `ulimit -n ${limit}`);
    const answers = r.stdout.trim().split("\n").map((line) => JSON.parse(line) as { id: number; error?: { code: string; message: string } });
    assert.deepEqual(answers.map((a) => a.id).sort((a, b) => a - b), [...Array(CALLS).keys()], `ulimit -n ${limit}: every request answered once`);
    exec.set(limit, tally(answers.map((a) => outcomeOf(a.error))));
  }
  assertAnsweredAsNotStarted(exec);

  const mcp = new Map<number, Record<string, number>>();
  for (const limit of LIMITS) {
    const { client, stderr } = await mcpClient([pack], { cwd, env, fileLimit: limit });
    try {
      const results = await Promise.all(Array.from({ length: CALLS }, () => client.callTool({ name: "echo_say", arguments: {} })));
      const outcomes = results.map((r) => outcomeOf(r.isError === true ? ((r.structuredContent as { error?: { code: string; message: string } }).error ?? { message: JSON.stringify(r.content) }) : undefined));
      // The server is still there: it answers what it serves.
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["echo_say"], `ulimit -n ${limit}`);
      mcp.set(limit, tally(outcomes));
    } finally {
      await client.close();
    }
    assert.doesNotMatch(stderr(), /internal error/, `ulimit -n ${limit}`);
  }
  assertAnsweredAsNotStarted(mcp);
});

/** `promise`, or undefined once `ms` have passed. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> =>
  Promise.race([promise, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref())]);

test("attack: an MCP server over HTTP run out of file descriptors (30 clients at once under ulimit -n 32 to 40, no HOME) masks every answer and goes on: each call is answered as run or not started (EMFILE), none as an internal error, and the server never ends", async () => {
  const pack = echoPack();
  // Without HOME (nor HCP_CREDENTIALS), the credential file's place under the home folder comes from the password
  // database, which a process out of file descriptors cannot read: masking an answer read it, outside any call, and
  // ended the server. (The file there is only read, for its values to mask.)
  const { HOME: _home, HCP_CREDENTIALS: _credentials, ...env } = isolatedEnv();
  const cwd = tempDir("hcp-file-limit-cwd-");
  const outcomes = new Map<number, Record<string, number>>();
  for (const limit of [32, 36, 40]) {
    const server = await serveHttp([pack], { cwd, env, fileLimit: limit });
    try {
      const { url } = server;
      const seen: string[] = [];
      await Promise.all(
        Array.from({ length: 30 }, async () => {
          const client = new Client({ name: "hcp-test", version: "1.0.0" });
          try {
            // A client past hcp's bound of connections (a quarter of its file descriptors) is closed, or waits.
            if ((await within(client.connect(new StreamableHTTPClientTransport(new URL(url))).then(() => true), 5000)) !== true) return;
            const r = await within(client.callTool({ name: "echo_say", arguments: {} }), 10_000);
            if (r !== undefined) seen.push(outcomeOf(r.isError === true ? (r.structuredContent as { error: { code: string; message: string } }).error : undefined));
          } catch {
            // refused at the door
          } finally {
            await client.close().catch(() => {});
          }
        }),
      );
      assert.equal(server.child.exitCode, null, `ulimit -n ${limit}: the server ended: ${server.stderr()}`);
      assert.doesNotMatch(server.stderr(), /internal error/, `ulimit -n ${limit}`);
      outcomes.set(limit, tally(seen));
    } finally {
      await server.stop();
    }
  }
  const report = JSON.stringify([...outcomes]);
  for (const outcome of new Set([...outcomes.values()].flatMap((t) => Object.keys(t)))) assert.ok(["ok", "spawn_failed: EMFILE"].includes(outcome), `${outcome}: ${report}`);
  assert.ok([...outcomes.values()].some((t) => (t["spawn_failed: EMFILE"] ?? 0) > 0), `no call ran hcp out of file descriptors: ${report}`);
});
