// hcp serve --mcp's JSON-RPC errors, through the SDK client: the codes JSON-RPC and MCP give them (found running the
// official conformance suite, `npm run conformance`), their messages written once, and lists in one page.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, EmptyResultSchema, McpError, type LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { PROBE_PACK, mcpClient } from "../transports/support.js";

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

async function withClient(fn: (client: Client) => Promise<void>): Promise<void> {
  const { client } = await mcpClient([PROBE_PACK]);
  try {
    await fn(client);
  } finally {
    await client.close();
  }
}

test("params that fail the method's schema are -32602 Invalid params naming the field, not -32603 with a schema dump", async () => {
  await withClient(async (client) => {
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
  });
});

test("an unknown tool, prompt or resource is -32602, its message written once", async () => {
  await withClient(async (client) => {
    assert.deepEqual(await errorOf(client.callTool({ name: "nope" })), { code: -32602, message: 'MCP error -32602: unknown tool "nope"' });
    assert.deepEqual(await errorOf(client.getPrompt({ name: "nope" })), { code: -32602, message: 'MCP error -32602: no prompt "nope"' });
    assert.deepEqual(await errorOf(client.readResource({ uri: "test://nope" })), { code: -32602, message: 'MCP error -32602: no resource "test://nope"' });
  });
});

test("lists come whole with no nextCursor; a cursor hcp never gave is -32602; resources/templates/list is answered (empty)", async () => {
  await withClient(async (client) => {
    const tools = await client.listTools();
    assert.ok(tools.tools.length > 0);
    const lists = [await client.listResources(), await client.listPrompts(), tools, await client.listResourceTemplates()];
    for (const list of lists) assert.equal(list.nextCursor, undefined);
    assert.deepEqual((await client.listResourceTemplates()).resourceTemplates, []);

    const cursor = { cursor: "bogus" };
    for (const list of [client.listTools(cursor), client.listResources(cursor), client.listPrompts(cursor), client.listResourceTemplates(cursor)]) {
      const error = await errorOf(list);
      assert.equal(error.code, -32602);
      assert.match(error.message, /invalid cursor "bogus"/);
    }
    // A valid request on the same connection still works.
    assert.deepEqual(await client.request({ method: "ping" }, EmptyResultSchema), {});
  });
});
