// Red team, a plan too long to read: the agent chooses the arguments, and one of 100,000 characters would push
// what runs out of a person's sight (the terminal's scrollback, a client's dialog) or hide in its middle what the
// person would refuse. A person is shown the start of each value and told how much is not shown; the question names
// what is approved; the approval still binds the whole plan.

import assert from "node:assert/strict";
import { test } from "node:test";
import { bank, planIdOf } from "./approvals-support.js";

/** 100,000 characters (under Linux's 128 KiB for one argument) with what the person would refuse in the middle. */
const padded = () => `5 ${"x".repeat(50_000)} and to mallory ${"x".repeat(49_982)}`;

/** What the terminal showed before the question, and the question's line. */
function screen(stdout: string): { before: string; question: string } {
  const text = stdout.replaceAll("\r\n", "\n");
  const at = text.indexOf("[y/N]");
  assert.ok(at > 0, text.slice(0, 2000));
  const start = text.lastIndexOf("\n", at) + 1;
  return { before: text.slice(0, start), question: text.slice(start, at + 5) };
}

test("an argument of 100,000 characters cannot push the plan out of a person's sight nor pass for whole: hcp approve, hcp run's prompt and elicitation show its start, say how much is not shown, and name what is approved; the approval binds the whole value", async () => {
  const b = bank();
  const amount = padded();
  assert.equal(amount.length, 100_000);
  const id = planIdOf(await b.hcp(["run", b.root, "pay", "--arg", `amount=${amount}`, "--allow-write", "--dry-run", "--json"]));

  // hcp approve: a screen of a few lines, ending with what is not shown; the question names the verb and pack.
  const no = await b.approve(id, "n");
  assert.equal(no.code, 0, no.stdout.slice(0, 2000));
  const shown = screen(no.stdout);
  assert.ok(shown.before.length < 3000, `the plan is ${shown.before.length} characters on the screen`);
  assert.ok(!shown.before.includes("mallory"), "the middle is not shown");
  assert.match(shown.before, /\n {2}argv: +\[".*", "pay", "5 x+"…\(\+99\d{3} characters\)\]\n/);
  assert.match(shown.before, /\n {2}not shown: 99\d{3} characters of argv, too long to show here: approve only if you know what they are; hcp approve --list --json shows the whole plan\n$/);
  assert.equal(shown.question, `Approve verb "pay" of pack "bank"? [y/N]`);

  // The whole plan, for a person who wants to read it.
  const list = await b.hcp(["approve", "--list", "--json"]);
  const pending = (JSON.parse(list.stdout) as { pending: { plan_id: string; plan: { argv: string[] } }[] }).pending;
  assert.equal(pending.find((p) => p.plan_id === id)?.plan.argv.at(-1), amount);

  // hcp run's own prompt on a terminal: the same, and declined, nothing runs.
  const prompted = await b.onTerminal(["run", b.root, "pay", "--arg", `amount=${amount}`, "--allow-write"], "[y/N]", "n");
  const asked = screen(prompted.stdout);
  assert.ok(asked.before.length < 3000, `the plan is ${asked.before.length} characters on the screen`);
  assert.ok(!asked.before.includes("mallory"));
  assert.match(asked.before, /\n {2}not shown: 99\d{3} characters of argv/);
  assert.equal(asked.question, `Run verb "pay" of pack "bank"? [y/N]`);

  // Elicitation: the message the client shows is as short, and says the same.
  const messages: string[] = [];
  const { client } = await b.mcp({ allowWrite: true, elicit: (m) => (messages.push(m), { action: "decline" }) });
  try {
    await client.callTool({ name: "bank_pay", arguments: { amount } });
  } finally {
    await client.close();
  }
  assert.equal(messages.length, 1);
  assert.ok(messages[0]!.length < 3000 && !messages[0]!.includes("mallory"), messages[0]!.slice(0, 3000));
  assert.match(messages[0]!, /^Approve running verb "pay" of pack "bank":\n/);
  assert.match(messages[0]!, /\n {4}not shown: 99\d{3} characters of argv/);
  assert.deepEqual(b.runs(), [], "nothing ran");

  // Declined (at hcp run's prompt and over MCP), its id is spent; dry-run again, approved, the plan runs as it is: the
  // whole value, once.
  assert.match((await b.approve(id, "y")).stdout, /was declined: its plan never runs/);
  const again = planIdOf(await b.hcp(["run", b.root, "pay", "--arg", `amount=${amount}`, "--allow-write", "--dry-run", "--json"]));
  assert.notEqual(again, id);
  const yes = await b.approve(again, "y");
  assert.match(yes.stdout, /Approved\./);
  const ran = await b.hcp(["run", b.root, "pay", "--arg", `amount=${amount}`, "--allow-write", "--confirm", again]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.deepEqual(
    b.runs().map((r) => r.argv.at(-1)),
    [amount],
  );
});
