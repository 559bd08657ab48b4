// Elicitation asks the MCP client, and trusts its answer as the person's. An agent that writes its own JSON-RPC is that
// client: it declares elicitation and accepts its own plans, no person asked. `hcp serve --no-elicitation` never asks
// the client: a confirm-gated call then waits for `hcp approve` (or --approver). Spawns the built hcp; the pack's
// program appends each real run to a witness file.

import assert from "node:assert/strict";
import { test } from "node:test";
import { bank, toolErrorOf } from "./approvals-support.js";
import { httpClient, serveHttp } from "../transports/support.js";

/** The agent as the MCP client: it declares elicitation and accepts whatever it is asked, showing no one. */
function selfApprover() {
  const asked: string[] = [];
  return { asked, elicit: (message: string) => (asked.push(message), { action: "accept" as const, content: { approve: true } }) };
}

test("an agent that is its own MCP client accepts its own elicitation; under --no-elicitation it is never asked: the plan waits for hcp approve, then runs once (stdio)", async () => {
  const b = bank();
  // The hole, as the design has it: without the flag, the client's accept runs the plan.
  const agent = selfApprover();
  const open = await b.mcp({ allowWrite: true, elicit: agent.elicit });
  try {
    const ran = await open.client.callTool({ name: "bank_pay", arguments: { amount: "5" } });
    assert.equal(ran.isError, undefined, JSON.stringify(ran.structuredContent));
    assert.equal(agent.asked.length, 1);
    assert.equal(b.runs().length, 1);
  } finally {
    await open.client.close();
  }

  const closed = selfApprover();
  const { client } = await b.mcp({ allowWrite: true, elicit: closed.elicit, args: ["--no-elicitation"] });
  try {
    const first = await client.callTool({ name: "bank_pay", arguments: { amount: "7" } });
    assert.equal(first.isError, true);
    assert.equal(toolErrorOf(first).code, "approval_required");
    const id = /hcp approve (hcp1\.\S+)/.exec(toolErrorOf(first).message)![1]!;
    const again = await client.callTool({ name: "bank_pay", arguments: { amount: "7", confirm: id } });
    assert.equal(toolErrorOf(again).code, "approval_required", "the agent's own retry approves nothing");
    assert.deepEqual(closed.asked, [], "the client was never asked");
    assert.equal(b.runs().length, 1, "nothing more ran");
    const approved = await b.approve(id);
    assert.equal(approved.code, 0, approved.stdout);
    const now = await client.callTool({ name: "bank_pay", arguments: { amount: "7", confirm: id } });
    assert.equal(now.isError, undefined, JSON.stringify(now.structuredContent));
    assert.equal(b.runs().length, 2);
    assert.deepEqual(b.runs()[1]!.argv.slice(-2), ["pay", "7"]);
  } finally {
    await client.close();
  }
});

test("--no-elicitation over HTTP (--stateful): a client that declares elicitation and accepts is never asked; nothing runs without hcp approve", async () => {
  const b = bank();
  const server = await serveHttp([b.root], { env: b.env, args: ["--stateful", "--allow-write", "--no-elicitation"] });
  const agent = selfApprover();
  const { client } = await httpClient(server.url, { elicit: agent.elicit });
  try {
    const r = await client.callTool({ name: "bank_pay", arguments: { amount: "9" } });
    assert.equal(toolErrorOf(r).code, "approval_required");
    assert.match(toolErrorOf(r).message, /hcp approve hcp1\./);
    assert.deepEqual(agent.asked, []);
    assert.equal(b.runs().length, 0);
  } finally {
    await client.close();
    await server.stop();
  }
});
