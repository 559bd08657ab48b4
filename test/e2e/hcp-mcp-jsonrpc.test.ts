// hcp serve --mcp's JSON-RPC errors through the SDK client, over stdio and HTTP (stateless and --stateful): the codes
// JSON-RPC and MCP give them (found around the official conformance suite, `npm run conformance`), their messages
// written once, and lists in one page.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, EmptyResultSchema, LoggingMessageNotificationSchema, McpError, type LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { PROBE_PACK, httpClient, mcpClient, rawHttp, serveHttp } from "../transports/support.js";

type Connect = (pack?: string) => Promise<{ client: Client; end: () => Promise<unknown> }>;

/** Each transport: a client connected to a fresh hcp serving the pack (the probe pack unless told), and how to end both. */
const TRANSPORTS: Record<string, Connect> = {
  stdio: async (pack = PROBE_PACK) => {
    const { client } = await mcpClient([pack], { env: isolatedEnv() });
    return { client, end: () => client.close() };
  },
  http: async (pack = PROBE_PACK) => {
    const served = await serveHttp([pack], { env: isolatedEnv() });
    const { client } = await httpClient(served.url);
    return { client, end: () => client.close().finally(served.stop) };
  },
  "http --stateful": async (pack = PROBE_PACK) => {
    const served = await serveHttp([pack], { env: isolatedEnv(), args: ["--stateful"] });
    const { client } = await httpClient(served.url);
    return { client, end: () => client.close().finally(served.stop) };
  },
};

/** The JSON-RPC error a request got (the client puts "MCP error <code>: " before the server's message). */
async function errorOf(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (err) {
    assert.ok(err instanceof McpError, `an McpError, got ${String(err)}`);
    return { code: err.code, message: err.message };
  }
  return assert.fail("the request succeeded");
}

for (const [name, connect] of Object.entries(TRANSPORTS)) {
  test(`${name}: params that fail the method's schema are -32602 naming the field, not -32603 with a schema dump`, async () => {
    const { client, end } = await connect();
    try {
      const level = await errorOf(client.setLoggingLevel("loud" as LoggingLevel));
      assert.equal(level.code, -32602);
      assert.match(level.message, /^MCP error -32602: invalid params for logging\/setLevel: params\.level: /);
      assert.ok(!level.message.includes("\n"), "one line, no schema library dump");

      const nameless = await errorOf(client.request({ method: "tools/call", params: {} as { name: string } }, CallToolResultSchema));
      assert.equal(nameless.code, -32602);
      assert.match(nameless.message, /invalid params for tools\/call: params\.name: /);

      // The server goes on, and a valid level is still taken.
      assert.deepEqual(await client.setLoggingLevel("error"), {});
      assert.deepEqual(await client.ping(), {});
    } finally {
      await end();
    }
  });

  test(`${name}: an unknown tool, prompt or resource is -32602, its message written once`, async () => {
    const { client, end } = await connect();
    try {
      assert.deepEqual(await errorOf(client.callTool({ name: "nope" })), { code: -32602, message: 'MCP error -32602: unknown tool "nope"' });
      assert.deepEqual(await errorOf(client.getPrompt({ name: "nope" })), { code: -32602, message: 'MCP error -32602: no prompt "nope"' });
      assert.deepEqual(await errorOf(client.readResource({ uri: "test://nope" })), { code: -32602, message: 'MCP error -32602: no resource "test://nope"' });
    } finally {
      await end();
    }
  });

  test(`${name}: lists come whole with no nextCursor; a cursor hcp never gave is -32602; resources/templates/list is answered (empty)`, async () => {
    const { client, end } = await connect();
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.length > 0);
      const templates = await client.listResourceTemplates();
      assert.deepEqual(templates.resourceTemplates, []);
      for (const list of [tools, templates, await client.listResources(), await client.listPrompts()]) assert.equal(list.nextCursor, undefined);

      const cursor = { cursor: "bogus" };
      // All four are sent at once; each gets its rejection handler before any can settle (no unhandled rejection).
      const errors = await Promise.all([client.listTools(cursor), client.listResources(cursor), client.listPrompts(cursor), client.listResourceTemplates(cursor)].map(errorOf));
      for (const error of errors) {
        assert.equal(error.code, -32602);
        assert.equal(error.message, "MCP error -32602: invalid cursor: hcp lists everything in one page and gives no cursors");
      }
      assert.deepEqual(await client.request({ method: "ping" }, EmptyResultSchema), {});
    } finally {
      await end();
    }
  });
}

for (const [name, connect] of Object.entries(TRANSPORTS)) {
  // Stateless, every request stands alone, and a level set by logging/setLevel with it; a session keeps it.
  const session = name !== "http";
  test(`${name}: a call's warning (output dropped) arrives with its answer${session ? ", unless the client set a higher level" : ""}`, async () => {
    const pack = probePack("flood", { flood: { description: "Write 4 KiB.", cli: ["probe", "run", "out:4096"], policy: "read" } }, {}, { verbs: { flood: "read" }, limits: { max_output_bytes: 1024 } });
    const { client, end } = await connect(pack);
    try {
      const logged: string[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(String(n.params.data)));
      const flood = async () => assert.equal(((await client.callTool({ name: "flood_flood", arguments: {} })).structuredContent as { stdout_truncated: boolean }).stdout_truncated, true);
      // The notification goes before the call's answer, on the same stream: once the call is answered, it is here.
      await flood();
      assert.equal(logged.length, 1, JSON.stringify(logged));
      assert.match(logged[0]!, /flood_flood: output past 1024 bytes per stream was dropped/);
      if (!session) return;
      await client.setLoggingLevel("error");
      await flood();
      assert.equal(logged.length, 1, `nothing below "error": ${JSON.stringify(logged)}`);
      await client.setLoggingLevel("warning");
      await flood();
      assert.equal(logged.length, 2, JSON.stringify(logged));
    } finally {
      await end();
    }
  });
}

test("http: a body that is not JSON is -32700; JSON that is not a JSON-RPC message is -32600 with its id, as on stdio", async () => {
  const served = await serveHttp([PROBE_PACK], { env: isolatedEnv() });
  try {
    const garbage = await rawHttp(served.url, { body: "{not json" });
    assert.equal(garbage.status, 400);
    const parseError = JSON.parse(garbage.body) as { id?: unknown; error: { code: number; message: string } };
    assert.equal(parseError.error.code, -32700);
    assert.equal(parseError.id, undefined);

    const wrong = await rawHttp(served.url, { body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: 42 }) });
    assert.equal(wrong.status, 400);
    assert.deepEqual(JSON.parse(wrong.body), { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "Invalid Request: not a valid JSON-RPC 2.0 message" } });

    const ping = await rawHttp(served.url, { body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }) });
    assert.equal(ping.status, 200);
    assert.match(ping.body, /"id":8/);
  } finally {
    await served.stop();
  }
});
