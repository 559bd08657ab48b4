// Red team, door by door: an agent at `hcp run` (argv, cwd, stdin), `hcp exec` (NDJSON) or `hcp serve --mcp` (the
// MCP client: every message, its order, cancellation, concurrency and elicitation answers) trying to run a gated
// plan without a person, to make a person approve something other than what runs, or to make hcp die with work in
// flight. The witness program appends one line per real run; each test asserts nothing ran that should not have.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { bank, jsonError, planIdOf, toolErrorOf } from "./approvals-support.js";

const pay = (root: string, amount: string) => ["run", root, "pay", "--arg", `amount=${amount}`, "--allow-write"];

/** A deferred value: a promise and the function that settles it. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test("MCP: two calls of one plan asked at once; the person declines the first and says yes to the second: the declined plan does not run in the session", async () => {
  const b = bank();
  const asks: { message: string; answer: (r: ElicitResult) => void }[] = [];
  const bothAsked = deferred<void>();
  const { client } = await b.mcp({
    allowWrite: true,
    elicit: (message) => {
      const d = deferred<ElicitResult>();
      asks.push({ message, answer: d.resolve });
      if (asks.length === 2) bothAsked.resolve();
      return d.promise;
    },
  });
  try {
    const first = client.callTool({ name: "bank_pay", arguments: { amount: "1000" } });
    const second = client.callTool({ name: "bank_pay", arguments: { amount: "1000" } });
    await bothAsked.promise;
    asks[0]!.answer({ action: "decline" });
    const declined = await first;
    assert.equal(toolErrorOf(declined).code, "confirmation_declined");
    // The person, asked again about the plan they just declined, gives in.
    asks[1]!.answer({ action: "accept", content: {} });
    const after = await second;
    assert.equal(after.isError, true, JSON.stringify(after.structuredContent));
    assert.equal(toolErrorOf(after).code, "confirmation_declined");
    assert.match(toolErrorOf(after).message, /declined by the person in this session/);
    assert.deepEqual(b.runs(), [], "a plan declined in the session never runs in it");
  } finally {
    await client.close();
  }
});

test("MCP: a call cancelled while its person is asked, then accepted by the client, runs nothing; its id stays unused", async () => {
  const b = bank();
  const abort = new AbortController();
  const asked = deferred<void>();
  const { client } = await b.mcp({
    allowWrite: true,
    elicit: async () => {
      asked.resolve();
      abort.abort();
      // The accept follows the cancellation on the same stream.
      await new Promise((r) => setImmediate(r));
      return { action: "accept", content: {} };
    },
  });
  try {
    const call = client.callTool({ name: "bank_pay", arguments: { amount: "5" } }, undefined, { signal: abort.signal });
    await assert.rejects(call, /abort|cancel/i);
    await asked.promise;
    // The server is still there, and the cancelled plan ran nothing, even after the accept came.
    const preview = await client.callTool({ name: "bank_pay", arguments: { amount: "5", dry_run: true } });
    assert.equal(preview.isError, undefined, JSON.stringify(preview.structuredContent));
    assert.deepEqual(b.runs(), []);
  } finally {
    await client.close();
  }
  const audit = b.hcp(["audit", "--json"]);
  const decisions = (JSON.parse((await audit).stdout) as { entries: { decision: string }[] }).entries.map((e) => e.decision);
  assert.ok(!decisions.includes("approved") && !decisions.includes("ran"), decisions.join(", "));
});

test("a person is shown every invisible character escaped: Hangul fillers, a grapheme joiner, variation selectors and other default-ignorable code points in an argument (hcp approve, elicitation)", async () => {
  const b = bank();
  // "alice" followed by characters that render as nothing: another recipient than the one a person reads.
  const hidden = ["\u3164", "\u115f", "\u1160", "\uffa0", "\u034f", "\u17b4", "\u180b", "\ufe0f", "\u{e0100}"];
  const to = `alice${hidden.join("")}`;
  const id = planIdOf(await b.hcp([...pay(b.root, to), "--dry-run", "--json"]));
  const shown = await b.approve(id, "n");
  assert.equal(shown.code, 0, shown.stdout);
  for (const c of hidden) assert.ok(!shown.stdout.includes(c), `U+${c.codePointAt(0)!.toString(16)} reached the terminal as is: ${shown.stdout}`);
  assert.ok(shown.stdout.includes(`"alice\\u{3164}\\u{115F}`), shown.stdout);

  const asked: string[] = [];
  const { client } = await b.mcp({ allowWrite: true, elicit: (m) => (asked.push(m), { action: "decline" }) });
  try {
    await client.callTool({ name: "bank_pay", arguments: { amount: to } });
  } finally {
    await client.close();
  }
  assert.equal(asked.length, 1);
  for (const c of hidden) assert.ok(!asked[0]!.includes(c), `U+${c.codePointAt(0)!.toString(16)} reached the person as is`);
  assert.deepEqual(b.runs(), []);
});

test("hcp run: a plan id spelled another way (a leading zero in its expiry, upper case, a trailing newline or space, full-width digits) runs nothing and leaves the real id unused", async () => {
  const b = bank();
  const id = planIdOf(await b.hcp([...pay(b.root, "10"), "--dry-run", "--json"]));
  assert.equal((await b.approve(id)).code, 0);
  const [, expiry, nonce, mac] = id.split(".");
  const fullWidth = expiry!.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
  const variants = [`hcp1.0${expiry}.${nonce}.${mac}`, id.toUpperCase(), `HCP1.${expiry}.${nonce}.${mac}`, `${id}\n`, `${id} `, ` ${id}`, `hcp1.${fullWidth}.${nonce}.${mac}`, `hcp1.${expiry}.${nonce}.${mac}=`];
  for (const v of variants) {
    const r = await b.hcp([...pay(b.root, "10"), "--confirm", v, "--json"]);
    assert.equal(r.code, 4, `${JSON.stringify(v)}: ${r.stdout} ${r.stderr}`);
    assert.notEqual(jsonError(r).code, "plan_id_used", `${JSON.stringify(v)} spent the real id`);
  }
  assert.deepEqual(b.runs(), []);
  const real = await b.hcp([...pay(b.root, "10"), "--confirm", id]);
  assert.equal(real.code, 0, real.stderr);
  assert.equal(b.runs().length, 1);
});
