// The HTTP responses' redactor (mcp-http-mask.ts) under the SDK's own adapter (@hono/node-server, what the SDK's
// Streamable HTTP transport writes through): an error body like the SDK's `{ data: String(error) }` is masked and sent
// with its new length; an event stream passes as written.

import assert from "node:assert/strict";
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { getRequestListener } from "@hono/node-server";
import { secretSet } from "../../src/runtime/secrets/redact.js";
import { maskResponses } from "../../src/transports/mcp-http-mask.js";

const SECRET = "mask-me-7Hq2Zr";

/** Serves `answer` through the SDK's adapter, masked, and returns what one GET got. */
async function served(answer: () => Response, secrets = [SECRET]): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const listener = getRequestListener(() => answer());
  const server = createServer((req, res) => {
    maskResponses(res, () => secretSet(secrets));
    void listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      request({ host: "127.0.0.1", port, path: "/" }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
        .on("error", reject)
        .end();
    });
  } finally {
    server.close();
  }
}

test("an SDK-style JSON error body quoting a secret is masked, with a Content-Length that fits the masked body", async () => {
  const sent = JSON.stringify({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error", data: `SyntaxError: "${SECRET}"` }, id: null });
  const r = await served(() => new Response(sent, { status: 400, headers: { "Content-Type": "application/json" } }));
  assert.equal(r.status, 400);
  assert.deepEqual(JSON.parse(r.body), { jsonrpc: "2.0", error: { code: -32700, message: "Parse error", data: 'SyntaxError: "***"' }, id: null });
  assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
  assert.equal(r.headers["content-type"], "application/json");
});

test("a JSON-RPC error body keeps its structure when a secret is one of its words (code, error, jsonrpc): only its values are masked", async () => {
  const sent = JSON.stringify({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error: error code", data: { code: "code" } }, id: "error" });
  const r = await served(() => new Response(sent, { status: 400, headers: { "Content-Type": "application/json" } }), ["code", "error", "jsonrpc", "2.0"]);
  assert.deepEqual(JSON.parse(r.body), { jsonrpc: "2.0", error: { code: -32700, message: "Parse ***: *** ***", data: { "***": "***" } }, id: "***" });
  assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
  const text = await served(() => new Response("no JSON: error code", { status: 400 }), ["code", "error"]);
  assert.equal(text.body, "no JSON: *** ***", "a body that is no JSON is masked whole");
});

test("an event stream passes as written, chunk by chunk (its events were masked by the transport's send)", async () => {
  const events = ["event: message\ndata: {\"a\":1}\n\n", "event: message\ndata: {\"b\":2}\n\n"];
  const r = await served(() => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const e of events) controller.enqueue(new TextEncoder().encode(e));
        controller.close();
      },
    });
    return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream" } });
  });
  assert.equal(r.status, 200);
  assert.equal(r.body, events.join(""));
  assert.equal(r.headers["content-type"], "text/event-stream");
});
