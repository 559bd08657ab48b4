// Red team, an accept nobody gave: a client may answer an elicitation without showing it to anyone. Codex accepts a
// form without fields by itself under approval policy `never` with full disk access (a person who lets the agent run
// freely, and counts on hcp to stop a payment), and VS Code takes a skipped question for an accept. hcp's form has a
// box the person ticks: an accept without it ticked is no person's answer, and nothing runs.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { bank, toolErrorOf } from "./approvals-support.js";

test("attack: a client that accepts the approval form unseen (Codex accepts a form without fields by itself; VS Code takes a skipped question for an accept) runs nothing: the form has a box to tick; an accept without it ticked (missing, or false) is no answer and no decline: the refusal names hcp approve, which a person then gives", async () => {
  const b = bank();
  const forms: ElicitRequest["params"][] = [];
  const answers: ElicitResult[] = [{ action: "accept", content: {} }, { action: "accept" }, { action: "accept", content: { approve: [true] } as never }, { action: "accept", content: { approve: false } }];
  const { client } = await b.mcp({ allowWrite: true, elicit: (_message, params) => (forms.push(params), answers.shift() ?? { action: "decline" }) });
  try {
    // As Codex answers a form it finds no field in: accept, with empty content; as a skipped question: accept alone; as
    // a form sends a box nobody touched: false.
    const ids: string[] = [];
    for (const amount of ["5", "6", "7", "8"]) {
      const unseen = await client.callTool({ name: "bank_pay", arguments: { amount } });
      assert.equal(unseen.isError, true, JSON.stringify(unseen.structuredContent));
      const error = toolErrorOf(unseen);
      assert.equal(error.code, "approver_failed");
      // Empty content fails the form's schema (the SDK's words); no content, or the box false, hcp's.
      // A box answered with another type ([true]): the SDK's issue, said in words, not its list's first line `[`.
      assert.match(error.message, /asking the MCP client failed \(.*(required property 'approve'|accept without the box "approve" ticked|content\.approve: Invalid input\))/);
      const id = /a person can approve this plan in a terminal with: hcp approve (hcp1\.[\w.-]+)/.exec(error.message)?.[1];
      assert.ok(id !== undefined, error.message);
      ids.push(id);
    }
    // The form asks for a box: a client that accepts only forms without fields by itself asks its person.
    const form = forms[0]! as { requestedSchema: { properties: Record<string, { type: string }>; required?: string[] } };
    assert.deepEqual(Object.keys(form.requestedSchema.properties), ["approve"]);
    assert.equal(form.requestedSchema.properties["approve"]!.type, "boolean");
    assert.deepEqual(form.requestedSchema.required, ["approve"]);
    assert.deepEqual(b.runs(), [], "nothing ran on an accept nobody gave");

    // No answer is no decline: the plan answered with the box false, which a person then approves in a terminal, runs once.
    const id = ids.at(-1)!;
    assert.equal((await b.approve(id)).code, 0);
    const ran = await client.callTool({ name: "bank_pay", arguments: { amount: "8", confirm: id } });
    assert.equal(ran.isError, undefined, JSON.stringify(ran.structuredContent));
  } finally {
    await client.close();
  }
  assert.deepEqual(
    b.runs().map((w) => w.argv),
    [["pay", "8"]],
  );
});
