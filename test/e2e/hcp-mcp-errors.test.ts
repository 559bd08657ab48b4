// Every kind of MCP error an agent can provoke reads with one prefix: "MCP error <code>: " once on a
// JSON-RPC error (the SDK's McpError would send it already prefixed), "Error: <code>: " once on a tool error.

import assert from "node:assert/strict";
import { test } from "node:test";
import { mcpClient, PROBE_PACK } from "../transports/support.js";

const count = (text: string, part: string) => text.split(part).length - 1;

/** The message of the error a call throws. */
async function thrown(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("no error");
}

test("MCP errors carry their prefix once: unknown tool, prompt and resource; invalid args, refused write, refused gate", async () => {
  const { client } = await mcpClient([PROBE_PACK], { args: ["--tools", "hcp-probe_echo", "--tools", "hcp-probe_write", "--tools", "hcp-probe_transfer"] });
  try {
    const rpc = [
      await thrown(() => client.callTool({ name: "hcp-probe_nope", arguments: {} })),
      await thrown(() => client.getPrompt({ name: "nope" })),
      await thrown(() => client.readResource({ uri: "hcp://nope/HARNESS.md" })),
    ];
    assert.match(rpc[0]!, /^MCP error -32602: unknown tool "hcp-probe_nope"$/);
    assert.match(rpc[1]!, /^MCP error -32602: no prompt "nope"$/);
    assert.match(rpc[2]!, /^MCP error -32602: no resource "hcp:\/\/nope\/HARNESS\.md"$/);
    for (const m of rpc) assert.equal(count(m, "MCP error"), 1, m);

    const calls = [
      { name: "hcp-probe_echo", arguments: { count: "x" } },
      { name: "hcp-probe_write", arguments: {} },
      { name: "hcp-probe_transfer", arguments: { amount: "1", payee: "eve", confirm: "hcp1.bogus" } },
    ];
    const results = await Promise.all(calls.map((c) => client.callTool(c)));
    const texts = results.map((r) => (r.content as { text: string }[])[0]!.text);
    const codes = results.map((r) => (r.structuredContent as { error: { code: string } }).error.code);
    assert.deepEqual(codes.slice(0, 2), ["invalid_args", "write_not_allowed"]);
    results.forEach((r, i) => {
      assert.equal(r.isError, true);
      assert.ok(texts[i]!.startsWith(`Error: ${codes[i]}: `), texts[i]);
      assert.equal(count(texts[i]!, "Error:"), 1, texts[i]);
      assert.equal(count(texts[i]!, codes[i]!), 1, texts[i]);
    });
  } finally {
    await client.close();
  }
});
