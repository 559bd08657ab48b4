// Red team, the plan a person approves drawn as Markdown: VS Code draws an elicitation's message as Markdown (`new
// MarkdownString(message)`, untrusted: no HTML), so the agent's values could draw as something else than what runs. A
// link's text hides its destination: `[Pay 10 USD to alice](<` in one argument and `>)` in a later one draw as that
// text alone, the recipient and the amount between them hidden; a backslash escape drops the backslash of a JSON `\"`,
// so one argument draws as two; `*` draws emphasis and is gone. The plan is drawn as code, as written.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Marked } from "marked";
import { bank, WITNESS_BIN } from "./approvals-support.js";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Markdown drawn as VS Code draws it untrusted: raw HTML shown as text. */
const vscode = new Marked({ renderer: { html: ({ text }) => escapeHtml(text) } });

/** What a person reads of `markdown` drawn so: the text of the HTML, without its tags (a link's destination among them). */
function drawn(markdown: string): string {
  const html = vscode.parse(markdown, { async: false });
  const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"' };
  return html.replace(/<[^>]*>/g, "").replace(/&(#\d+|\w+);/g, (all, e: string) => (e.startsWith("#") ? String.fromCharCode(Number(e.slice(1))) : (entities[e] ?? all)));
}

test("attack: values the agent chose cannot draw as something else in a client that draws the elicitation as Markdown (VS Code): a link's text hiding the recipient and amount after it, an escaped quote of JSON drawn as a quote that splits one argument into two, * drawn as emphasis; the plan draws as written, and nothing runs on the person's no", async () => {
  const b = bank();
  const args = { type: "object", properties: Object.fromEntries(["memo", "to", "amount", "reference"].map((k) => [k, { type: "string" }])), required: ["memo", "to", "amount", "reference"], additionalProperties: false };
  const surface = {
    id: "bank",
    kind: "wrap",
    binding: { mode: "local", hub: "none" },
    wrap: { bin: WITNESS_BIN },
    verbs: { transfer: { description: "Transfer money (a person must approve).", cli: ["witness", "transfer", "--memo={{memo}}", "--to={{to}}", "--amount={{amount}}", "--reference={{reference}}"], args, policy: "write" } },
  };
  writeFileSync(join(b.root, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(b.root, "policy.json"), JSON.stringify({ surface_id: "bank", default: "deny", verbs: { transfer: { policy: "write", confirm: true } }, env: ["WITNESS"] }));

  const calls = [
    // A link across values: drawn, the memo reads "Pay 10 USD to alice" and nothing after it up to the reference.
    { memo: "[Pay 10 USD to alice](<", to: "mallory", amount: "1000", reference: ">)" },
    // One value drawn as two: the person would read a recipient "alice" of its own.
    { memo: 'rent", "--to=alice', to: "mallory", amount: "1000", reference: "r1" },
    // Emphasis: 2*500*0 drawn as 25000 with 500 in italics.
    { memo: "m", to: "mallory", amount: "2*500*0", reference: "r2" },
  ];
  const asked: string[] = [];
  const { client } = await b.mcp({ allowWrite: true, elicit: (m) => (asked.push(m), { action: "decline" }) });
  try {
    for (const call of calls) await client.callTool({ name: "bank_transfer", arguments: call });
  } finally {
    await client.close();
  }
  assert.equal(asked.length, calls.length);
  for (const [i, message] of asked.entries()) {
    // As plain text (a client that does not draw Markdown), the plan reads as in a terminal, each line indented.
    assert.match(message, /^Approve running verb "transfer" of pack "bank":\n\n {4}argv: +\[/);
    const argv = message.split("\n").find((l) => l.trimStart().startsWith("argv:"))!.trim();
    const seen = drawn(message);
    assert.ok(seen.includes(argv), `drawn, the argv line reads as written:\n${argv}\n---\n${seen}`);
    for (const value of Object.values(calls[i]!)) assert.ok(seen.includes(JSON.stringify(value).slice(1, -1)), `${value} is seen, as JSON writes it:\n${seen}`);
  }
  assert.deepEqual(b.runs(), [], "nothing ran");
});
