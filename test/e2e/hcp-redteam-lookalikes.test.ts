// Red team, look-alikes in the plan a person approves: the agent chooses the arguments, and a recipient written with
// Cyrillic letters (`аlice`, `bob@ехample.com`) reads as the one the person expects. Every value with a character
// outside ASCII is shown with those characters escaped too, in `hcp approve` and in elicitation alike.

import assert from "node:assert/strict";
import { test } from "node:test";
import { bank, planIdOf } from "./approvals-support.js";

test("a look-alike recipient the agent chose (Cyrillic а and е) cannot pass for the one a person reads: hcp approve, elicitation and hcp audit show it escaped too", async () => {
  const b = bank();
  const lookalike = "\u0430lice@\u0435xample.com"; // аlice@еxample.com
  const id = planIdOf(await b.hcp(["run", b.root, "pay", "--arg", `amount=${lookalike}`, "--allow-write", "--dry-run", "--json"]));
  const shown = await b.approve(id, "n");
  assert.equal(shown.code, 0, shown.stdout);
  assert.ok(shown.stdout.includes(String.raw`"\u{0430}lice@\u{0435}xample.com"`), shown.stdout);

  const asked: string[] = [];
  const { client } = await b.mcp({ allowWrite: true, elicit: (m) => (asked.push(m), { action: "decline" }) });
  try {
    await client.callTool({ name: "bank_pay", arguments: { amount: lookalike } });
  } finally {
    await client.close();
  }
  assert.equal(asked.length, 1);
  assert.ok(asked[0]!.includes(String.raw`"\u{0430}lice@\u{0435}xample.com"`), asked[0]);
  // The audit log a person reads later shows it so too.
  const audit = await b.hcp(["audit", "--audit", b.audit]);
  assert.equal(audit.code, 0, audit.stderr);
  assert.ok(audit.stdout.includes(String.raw`"\u{0430}lice@\u{0435}xample.com"`), audit.stdout);
  assert.deepEqual(b.runs(), [], "nothing ran");
});
