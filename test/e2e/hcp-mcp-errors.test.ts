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
    assert.match(rpc[0]!, /^MCP error -32602: unknown tool "hcp-probe_nope" \(tools\/list names the 3 tools this server serves\)$/);
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

test("an unknown tool's error names the served tool nearest to it (another separator, case, a letter off), never one the server hides", async () => {
  const { client } = await mcpClient([PROBE_PACK], { args: ["--read-only"] });
  try {
    const { tools } = await client.listTools();
    const served = tools.map((t) => t.name);
    assert.deepEqual(served.sort(), ["hcp-probe_echo", "hcp-probe_fail", "hcp-probe_quick", "hcp-probe_sleeper", "hcp-probe_slow"]);
    const message = (name: string) => thrown(() => client.callTool({ name, arguments: {} }));
    for (const typed of ["hcp-probe.echo", "HCP-PROBE_ECHO", "hcp-probe_ecoh", "hcp_probe_echo"]) {
      assert.equal(await message(typed), `MCP error -32602: unknown tool ${JSON.stringify(typed)} (did you mean "hcp-probe_echo"?)`);
    }
    // A write hidden under --read-only and a denied verb are as unknown as a made-up name: none is named.
    for (const typed of ["hcp-probe_writ", "hcp-probe_write", "hcp-probe_hidden", "nope"]) {
      assert.equal(await message(typed), `MCP error -32602: unknown tool ${JSON.stringify(typed)} (tools/list names the 5 tools this server serves)`);
    }
  } finally {
    await client.close();
  }
});
