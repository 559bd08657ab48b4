// An openapi pack's `limits.concurrency` bounds its HTTP requests in flight per server, as it bounds a CLI pack's
// children: the built hcp (MCP over stdio and HTTP, hcp exec) against a loopback API that counts the requests it holds
// at once; and a request past its `timeout_ms` is aborted (the API sees its connection closed) and answered.

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { execSession, httpClient, mcpClient, serveHttp } from "../transports/support.js";
import { isolatedEnv, openapiPack } from "./openapi-support.js";

/** The pack's bound, and how many calls arrive at once (a multiple of it: every batch fills up). */
const LIMIT = 3;
const CALLS = 12;
/** How long a full batch is held before it is answered, so that a request past the bound has time to show up. */
const HOLD_MS = 300;
/** A hang guard far above anything the calls need. */
const HANG_GUARD_MS = 60_000;

interface Counting {
  origin: string;
  /** The most requests the API held at once, over its life. */
  maxInFlight: () => number;
  /** Requests received, over its life. */
  received: () => number;
  /** Of /v1/never's requests (never answered): how many arrived, and how many the client closed. */
  never: { arrived: number; closed: number };
  close: () => Promise<void>;
}

/**
 * The API. /v1/hold holds each request until LIMIT are held at once, waits HOLD_MS more (a request past the bound
 * would arrive meanwhile), then answers them all; a hang guard answers whatever it holds after HANG_GUARD_MS, so a
 * server that never fills a batch fails the test instead of hanging it. /v1/never never answers.
 */
async function countingApi(): Promise<Counting> {
  let inFlight = 0;
  let max = 0;
  let received = 0;
  const held: (() => void)[] = [];
  const never = { arrived: 0, closed: 0 };
  let batch: NodeJS.Timeout | undefined;
  const releaseAll = () => {
    batch = undefined;
    for (const answer of held.splice(0)) answer();
  };
  const guard = setInterval(releaseAll, HANG_GUARD_MS);
  const server: Server = createServer((req, res) => {
    received++;
    if (req.url?.startsWith("/v1/never")) {
      never.arrived++;
      res.on("close", () => never.closed++);
      return;
    }
    inFlight++;
    max = Math.max(max, inFlight);
    held.push(() => {
      inFlight--;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ answered: true }));
    });
    if (held.length >= LIMIT && batch === undefined) batch = setTimeout(releaseAll, HOLD_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    maxInFlight: () => max,
    received: () => received,
    never,
    close: () =>
      new Promise((resolve) => {
        clearInterval(guard);
        clearTimeout(batch);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const DOC = {
  openapi: "3.1.0",
  info: { title: "Counting", version: "1" },
  servers: [{ url: "http://127.0.0.1:9/v1" }],
  paths: {
    "/hold": { get: { operationId: "hold", parameters: [{ name: "n", in: "query", schema: { type: "integer" } }], responses: { "200": { description: "Held, then answered." } } } },
    "/never": { get: { operationId: "never", parameters: [{ name: "n", in: "query", schema: { type: "integer" } }], responses: { "200": { description: "Never answered." } } } },
  },
};

/** The pack (id `notes`) against `origin`, with `limits` in its policy.json. */
function countingPack(origin: string, limits: Record<string, number>): string {
  const dir = openapiPack({
    ref: { path: "api.json" },
    binding: { mode: "local", hub: "none" },
    verbs: { hold: { description: "Held." }, never: { description: "Never answered." } },
    policy: { default: "read", limits, openapi: { base_url: `${origin}/v1` } },
  });
  writeFileSync(join(dir, "api.json"), JSON.stringify(DOC));
  return dir;
}

const apis: Counting[] = [];
after(async () => {
  for (const api of apis) await api.close();
});

async function freshApi(): Promise<Counting> {
  const api = await countingApi();
  apis.push(api);
  return api;
}

const calls = () => Array.from({ length: CALLS }, (_, n) => n);

test("limits.concurrency bounds an openapi pack's requests in flight: MCP over stdio, MCP over HTTP, hcp exec", async () => {
  // MCP over stdio: every call sent at once.
  {
    const api = await freshApi();
    const { client } = await mcpClient([countingPack(api.origin, { concurrency: LIMIT })], { env: isolatedEnv() });
    try {
      const results = await Promise.all(calls().map((n) => client.callTool({ name: "notes_hold", arguments: { n } }, undefined, { timeout: HANG_GUARD_MS * 2 })));
      for (const r of results) assert.equal((r.structuredContent as { status: number }).status, 200, JSON.stringify(r));
    } finally {
      await client.close();
    }
    assert.equal(api.received(), CALLS);
    assert.equal(api.maxInFlight(), LIMIT, "MCP over stdio: at most limits.concurrency requests at once, and the bound is used");
  }
  // MCP over Streamable HTTP (stateless): each call on its own HTTP request, one bound for the server.
  {
    const api = await freshApi();
    const served = await serveHttp([countingPack(api.origin, { concurrency: LIMIT })], { env: isolatedEnv() });
    try {
      const { client } = await httpClient(`${served.url}`);
      try {
        const results = await Promise.all(calls().map((n) => client.callTool({ name: "notes_hold", arguments: { n } }, undefined, { timeout: HANG_GUARD_MS * 2 })));
        for (const r of results) assert.equal((r.structuredContent as { status: number }).status, 200, JSON.stringify(r));
      } finally {
        await client.close();
      }
    } finally {
      await served.stop();
    }
    assert.equal(api.received(), CALLS);
    assert.equal(api.maxInFlight(), LIMIT, "MCP over HTTP: at most limits.concurrency requests at once, and the bound is used");
  }
  // hcp exec: every request line at once, with more requests allowed to run than the pack's bound.
  {
    const api = await freshApi();
    const lines = calls().map((n) => JSON.stringify({ id: n, pack: "notes", verb: "hold", args: { n } }));
    const r = await execSession([countingPack(api.origin, { concurrency: LIMIT })], lines, ["--concurrency", "16"], { env: isolatedEnv(), timeoutMs: HANG_GUARD_MS * 2 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.responses.length, CALLS);
    for (const res of r.responses) assert.equal(res.ok && res.result?.["status"], 200, JSON.stringify(res));
    assert.equal(api.received(), CALLS);
    assert.equal(api.maxInFlight(), LIMIT, "hcp exec: at most limits.concurrency requests at once, and the bound is used");
  }
});

test("a request past timeout_ms is aborted (the API sees its connection closed) and answered timed_out; its slot goes to the next call", async () => {
  const api = await freshApi();
  // One slot: the second call is sent only once the first has timed out and given its slot back. 4 s: far more than
  // a loopback request needs to reach the API on a loaded machine, so each one surely arrives before its deadline.
  const pack = countingPack(api.origin, { concurrency: 1, timeout_ms: 4000 });
  const lines = [0, 1].map((n) => JSON.stringify({ id: n, pack: "notes", verb: "never", args: { n } }));
  const r = await execSession([pack], lines, [], { env: isolatedEnv(), timeoutMs: HANG_GUARD_MS });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.responses.length, 2);
  for (const res of r.responses) {
    assert.equal(res.ok, true, JSON.stringify(res));
    assert.deepEqual([res.result?.["timed_out"], res.result?.["status"]], [true, null], JSON.stringify(res));
  }
  assert.equal(api.never.arrived, 2);
  // The API never answered: each connection was closed by hcp's abort (seen by the API a moment after hcp answered).
  const until = Date.now() + HANG_GUARD_MS;
  while (api.never.closed < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(api.never.closed, 2, "each timed-out request's connection closed");
});
