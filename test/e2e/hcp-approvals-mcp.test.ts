// Approvals over MCP, with the official SDK client: with and without the elicitation capability,
// accepting, declining and cancelling; a witness file shows whether the program really ran.

import assert from "node:assert/strict";
import { test } from "node:test";
import { bank, person, toolErrorOf as errorOf, toolPlanIdOf as planIdOf } from "./approvals-support.js";

type Call = object;
const errorCode = (r: Call) => ((r as { structuredContent?: unknown }).structuredContent as { error?: { code: string } }).error?.code;

test("elicitation: the person sees the plan (bidi and controls escaped) and accepts: it runs once; the id it ran under cannot run again", async () => {
  const b = bank();
  const p = person(["accept", "accept"]);
  const { client } = await b.mcp({ allowWrite: true, elicit: p.elicit });
  try {
    const trick = "10\u202e00001\u001b[2J";
    const r = await client.callTool({ name: "bank_pay", arguments: { amount: trick } });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    assert.match(p.asked[0]!, /^Approve running verb "pay" of pack "bank":\n\n {4}argv: +\[/);
    assert.ok(p.asked[0]!.includes("10\\u{202E}00001\\u001b[2J") || p.asked[0]!.includes("10\\u{202E}00001\\u{001B}[2J"), p.asked[0]);
    assert.ok(!/[\u202e\u001b]/.test(p.asked[0]!), "no raw control or bidi character reaches the person");
    assert.deepEqual(b.runs().map((w) => w.argv), [["pay", trick]]);

    // With the agent's own dry-run id, accepted in the client: runs once; that id is then spent.
    const dry = await client.callTool({ name: "bank_pay", arguments: { amount: "5", dry_run: true } });
    const id = planIdOf(dry);
    const ran = await client.callTool({ name: "bank_pay", arguments: { amount: "5", confirm: id } });
    assert.equal(ran.isError, undefined, JSON.stringify(ran.structuredContent));
    const replay = await client.callTool({ name: "bank_pay", arguments: { amount: "5", confirm: id } });
    assert.equal(errorCode(replay), "plan_id_used");
    assert.equal(p.asked.length, 2, "a used id is refused without asking");
    assert.equal(b.runs().length, 2);
  } finally {
    await client.close();
  }
});

test("after a decline or a cancel, that plan cannot run in the session, whatever id follows (even one approved in a terminal); a declined plan's id is spent: not listed by hcp approve --list, not approvable", async () => {
  const b = bank();
  const p = person(["decline", "cancel", "accept"]);
  const { client } = await b.mcp({ allowWrite: true, elicit: p.elicit });
  try {
    const declined = await client.callTool({ name: "bank_pay", arguments: { amount: "1" } });
    assert.equal(errorCode(declined), "confirmation_declined");
    assert.match(errorOf(declined).message, /declined by the MCP client \(its person, or the client by its own settings\); nothing was run; this plan cannot run in this session/);
    // Its id is spent: hcp approve --list no longer offers it, and a person cannot approve it later by mistake.
    const declinedId = (errorOf(declined) as { plan_id?: string }).plan_id!;
    assert.doesNotMatch((await b.hcp(["approve", "--list"])).stdout, new RegExp(declinedId.replaceAll(".", "\\.")));
    const late = await b.approve(declinedId);
    assert.notEqual(late.code, 0);
    assert.match(late.stdout + late.stderr, /was declined: its plan never runs; dry-run again to ask a person again/);
    // The agent's way around it: a dry run, then confirm with its id.
    const id = planIdOf(await client.callTool({ name: "bank_pay", arguments: { amount: "1", dry_run: true } }));
    const retried = await client.callTool({ name: "bank_pay", arguments: { amount: "1", confirm: id } });
    assert.equal(errorCode(retried), "confirmation_declined");
    assert.match(errorOf(retried).message, /cannot run in this session, whatever plan_id comes with it/);
    assert.equal((await b.approve(id)).code, 0, "a person approves it in a terminal");
    assert.equal(errorCode(await client.callTool({ name: "bank_pay", arguments: { amount: "1", confirm: id } })), "confirmation_declined");

    const cancelled = await client.callTool({ name: "bank_pay", arguments: { amount: "2" } });
    assert.equal(errorCode(cancelled), "confirmation_declined");
    assert.match(errorOf(cancelled).message, /dismissed by the MCP client \(its person, or the client by its own settings\); nothing was run; this plan cannot run in this session/);
    const id2 = planIdOf(await client.callTool({ name: "bank_pay", arguments: { amount: "2", dry_run: true } }));
    assert.equal(errorCode(await client.callTool({ name: "bank_pay", arguments: { amount: "2", confirm: id2 } })), "confirmation_declined");
    assert.equal(p.asked.length, 2, "a declined plan is not asked about again");
    assert.equal(b.runs().length, 0);

    // Another plan is still asked about.
    const other = await client.callTool({ name: "bank_pay", arguments: { amount: "3" } });
    assert.equal(other.isError, undefined);
    assert.deepEqual(b.runs().map((w) => w.argv), [["pay", "3"]]);
  } finally {
    await client.close();
  }
});

test("without elicitation: the refusal names `hcp approve <id>` (and carries it as plan_id); approved at a terminal, the retry with the same id runs once", async () => {
  const b = bank();
  const { client } = await b.mcp({ allowWrite: true });
  try {
    const first = await client.callTool({ name: "bank_pay", arguments: { amount: "7" } });
    assert.equal(errorCode(first), "approval_required");
    const id = /hcp approve (hcp1\.\S+)/.exec(errorOf(first).message)![1]!;
    assert.equal((errorOf(first) as { plan_id?: string }).plan_id, id, "the plan_id is a field of the error too, not only words of its message");
    // In MCP's own terms only: hcp run's flag is no use to an agent calling a tool.
    assert.ok(errorOf(first).message.includes(`then retry with the same plan_id (MCP: "confirm": "${id}" in the tool's arguments) before `), errorOf(first).message);
    const early = await client.callTool({ name: "bank_pay", arguments: { amount: "7", confirm: id } });
    assert.equal(errorCode(early), "approval_required", "the agent can wait and retry with the same id");
    assert.equal(b.runs().length, 0);
    const approved = await b.approve(id);
    assert.equal(approved.code, 0, approved.stdout);
    const ran = await client.callTool({ name: "bank_pay", arguments: { amount: "7", confirm: id } });
    assert.equal(ran.isError, undefined, JSON.stringify(ran.structuredContent));
    assert.equal((ran.structuredContent as { stdout: string }).stdout, "ran\n");
    assert.equal(errorCode(await client.callTool({ name: "bank_pay", arguments: { amount: "7", confirm: id } })), "plan_id_used");
    assert.equal(b.runs().length, 1);
  } finally {
    await client.close();
  }
});

test("a read verb with confirm: true runs over MCP once approved; dry_run never runs a write, even where its schema allows extra properties; a read-only server previews writes", async () => {
  const b = bank();
  const p = person(["accept"]);
  const { client } = await b.mcp({ elicit: p.elicit });
  try {
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    const peek = tools.get("bank_peek")!;
    assert.equal(peek.annotations?.readOnlyHint, true);
    assert.deepEqual(Object.keys(peek.inputSchema.properties ?? {}), ["dry_run", "confirm"]);
    const read = await client.callTool({ name: "bank_peek", arguments: {} });
    assert.equal(read.isError, undefined, JSON.stringify(read.structuredContent));
    assert.deepEqual(b.runs().map((w) => w.argv), [["peek"]]);

    assert.ok("dry_run" in (tools.get("bank_touch")!.inputSchema.properties ?? {}));
    const preview = await client.callTool({ name: "bank_touch", arguments: { dry_run: true } });
    assert.equal(preview.isError, undefined, JSON.stringify(preview.structuredContent));
    assert.match(planIdOf(preview), /^hcp1\./);
    const payPreview = await client.callTool({ name: "bank_pay", arguments: { amount: "9", dry_run: true } });
    assert.deepEqual((payPreview.structuredContent as { plan: { argv: string[] } }).plan.argv.slice(1), ["pay", "9"]);
    assert.equal(errorCode(await client.callTool({ name: "bank_touch", arguments: {} })), "write_not_allowed");
    assert.equal(b.runs().length, 1, "no preview ran anything");
  } finally {
    await client.close();
  }
});

test("serve --approver PROGRAM decides instead of elicitation", async () => {
  const b = bank();
  const p = person(["accept"]);
  const { client } = await b.mcp({ allowWrite: true, elicit: p.elicit, args: ["--approver", "false"] });
  try {
    const r = await client.callTool({ name: "bank_pay", arguments: { amount: "1" } });
    assert.equal(errorCode(r), "confirmation_declined");
    assert.match(errorOf(r).message, /declined by the --approver program/);
    assert.match(client.getInstructions() ?? "", /A person approves it \(asked by the operator's approver, else with `hcp approve <plan_id>` in a terminal\)/, "the agent is told how");
    assert.equal(p.asked.length, 0);
    assert.equal(b.runs().length, 0);
  } finally {
    await client.close();
  }
});
