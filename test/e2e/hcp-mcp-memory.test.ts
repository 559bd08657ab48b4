// `hcp serve --mcp` keeps nothing of a call once it is answered: after a full collection, the objects alive and the
// heap used do not grow with the calls (a server that kept something per call would grow without end).

import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO, fixture } from "./helpers.js";
import { mcpClient, tempDir } from "../transports/support.js";

/** A verb wrapping /bin/echo (the benchmark's pack): calls as cheap as a call can be. */
const ECHO_PACK = join(REPO, "bench/fixtures/echo-pack");

/** `count` calls of echo_say, 16 in flight (as the benchmark makes them). */
async function calls(client: Client, count: number): Promise<void> {
  await inFlight(count, async () => {
    const r = await client.callTool({ name: "echo_say", arguments: {} });
    assert.equal(r.isError, undefined);
  });
}

/** `count` runs of `round`, 16 at a time. */
async function inFlight(count: number, round: (n: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await round(next++);
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/**
 * Alive after a full collection, at three probes `stretch` calls apart (or rounds, one call of each kind): of each kind,
 * fewer more than one for every two calls in one stretch or the other. One thing kept per call (of one kind) is
 * `stretch` more in each; V8's own objects move by up to about 200 between probes, either way (a cache trimmed, code
 * tiered up), on a fast machine, and a path first taken late (a call slow enough for a progress notification, on a
 * loaded machine) makes its code and objects once, in one stretch only.
 */
function assertNothingKept([warm, middle, after]: [Probe, Probe, Probe], stretch: number, what: string): void {
  const least = (of: (p: Probe) => number) => Math.min(of(middle) - of(warm), of(after) - of(middle));
  for (const kind of ["objects", "functions", "promises"] as const) {
    assert.ok(least((p) => p.live[kind]) < stretch / 2, `${kind} alive after a full collection: ${[warm, middle, after].map((p) => p.live[kind]).join(", ")} ${what}`);
  }
  // What no count sees (strings kept in a map, say): V8's own code and caches move it by a few hundred KiB.
  assert.ok(least((p) => p.heapUsed) < 1024 * 1024, `heap used after a full collection: ${[warm, middle, after].map((p) => p.heapUsed).join(", ")} bytes ${what}`);
}

interface Probe {
  heapUsed: number;
  live: { objects: number; functions: number; promises: number };
}

/** The server's heap after a full collection, from test/fixtures/heap-probe.cjs preloaded into it. */
async function probe(pid: number, out: string): Promise<Probe> {
  rmSync(out, { force: true });
  process.kill(pid, "SIGUSR2");
  // A hang guard only: the probe answers within milliseconds.
  for (let waited = 0; !existsSync(out); waited += 10) {
    if (waited > 30_000) throw new Error("the heap probe did not answer");
    await sleep(10);
  }
  return JSON.parse(readFileSync(out, "utf8")) as Probe;
}

test("hcp serve --mcp keeps nothing per call: after 200 calls, fewer objects, functions and promises are alive than one more for every two calls of the next 600, or of the 600 after, and the heap used grows less than 1 MiB in one of them", async () => {
  const out = join(tempDir(), "heap.json");
  const env = { ...process.env, NODE_OPTIONS: `--require ${fixture("heap-probe.cjs")}`, HEAP_PROBE_OUT: out, HEAP_PROBE_LIVE: "1" };
  const { client } = await mcpClient([ECHO_PACK], { env });
  try {
    const pid = (client.transport as StdioClientTransport).pid!;
    // The first calls compile and optimise code and fill caches: the server at rest is measured after them.
    await calls(client, 200);
    const warm = await probe(pid, out);
    await calls(client, 600);
    const middle = await probe(pid, out);
    await calls(client, 600);
    assertNothingKept([warm, middle, await probe(pid, out)], 600, "after 200, 800 and 1,400 calls");
  } finally {
    await client.close();
  }
});

test("hcp serve --mcp keeps nothing per plan-checked call in memory: dry runs, confirmed runs, reused and malformed ids, refused arguments", async () => {
  // A write verb confirmed by restating its plan_id: each round issues a plan, runs it, and is refused twice.
  const pack = tempDir();
  const message = { type: "object", properties: { message: { type: "string", maxLength: 100 } }, required: ["message"], additionalProperties: false };
  const surface = { id: "note", kind: "wrap", cliBin: "echo", wrap: { bin: "/bin/echo" }, verbs: { add: { description: "Note a message.", cli: ["echo", "{{message}}"], args: message, policy: "write" } } };
  writeFileSync(join(pack, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(pack, "policy.json"), JSON.stringify({ surface_id: "note", default: "deny", verbs: { add: { policy: "write", confirm: "plan" } } }));
  const out = join(tempDir(), "heap.json");
  const env = { ...process.env, NODE_OPTIONS: `--require ${fixture("heap-probe.cjs")}`, HEAP_PROBE_OUT: out, HEAP_PROBE_LIVE: "1" };
  const { client } = await mcpClient([pack], { env, allowWrite: true });
  const call = (args: Record<string, unknown>) => client.callTool({ name: "note_add", arguments: args });
  const code = (r: Awaited<ReturnType<typeof call>>) => (r.structuredContent as { error?: { code: string } }).error?.code;
  // Every round's plan is new (its own message), as an agent's would be: nothing it leaves behind can be shared.
  const round = async (n: number) => {
    const args = { message: `note ${n}` };
    const dry = await call({ ...args, dry_run: true });
    const planId = (dry.structuredContent as { plan_id: string }).plan_id;
    assert.equal((await call({ ...args, confirm: planId })).isError, undefined);
    assert.equal(code(await call({ ...args, confirm: planId })), "plan_id_used");
    assert.equal(code(await call({ ...args, confirm: "f".repeat(64) })), "plan_id_malformed");
    assert.equal((await call({ message: 7 })).isError, true);
  };
  try {
    const pid = (client.transport as StdioClientTransport).pid!;
    let done = 0;
    const rounds = async (count: number) => inFlight(count, (n) => round(done + n)).then(() => void (done += count));
    await rounds(60);
    const warm = await probe(pid, out);
    await rounds(120);
    const middle = await probe(pid, out);
    await rounds(120);
    assertNothingKept([warm, middle, await probe(pid, out)], 120, "after 60, 180 and 300 rounds (300, 900 and 1,500 calls)");
  } finally {
    await client.close();
  }
});
