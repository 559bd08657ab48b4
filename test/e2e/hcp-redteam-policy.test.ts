// Red team: getting around the policy by naming. Verb names that look like a served verb (case, a Cyrillic
// letter, a zero-width space, JavaScript's own property names), tool names built the same way, arguments that
// would become flags, and an argument claiming write permission. Each is refused and the witness never runs.

import assert from "node:assert/strict";
import { test } from "node:test";
import { bank } from "./approvals-support.js";
import { execSession } from "../transports/support.js";

const LOOKALIKES = ["PAY", "p\u0430y", "pay\u200b", "pay ", "pay.", "__proto__", "constructor", "toString", "hasOwnProperty", ""];

test("verb names that look like a served one, or name JavaScript's own properties, are unknown verbs on exec and unknown tools on MCP: nothing runs", async () => {
  const b = bank();
  const lines = LOOKALIKES.map((verb, i) => JSON.stringify({ id: i, pack: "bank", verb, args: { amount: "1" } }));
  const s = await execSession([b.root], lines, ["--allow-write"], { env: b.env });
  assert.equal(s.responses.length, LOOKALIKES.length);
  for (const r of s.responses) assert.equal(r.ok, false, JSON.stringify(r));
  assert.ok(
    s.responses.every((r) => ["unknown_verb", "invalid_request"].includes(r.error?.code ?? "")),
    JSON.stringify(s.responses.map((r) => r.error)),
  );
  const { client } = await b.mcp({ allowWrite: true });
  try {
    for (const verb of LOOKALIKES) {
      const r = await client.callTool({ name: `bank_${verb}`, arguments: { amount: "1" } }).catch((e: Error) => ({ thrown: e.message }));
      assert.ok("thrown" in r || (r as { isError?: boolean }).isError === true, `bank_${JSON.stringify(verb)} ran: ${JSON.stringify(r)}`);
    }
  } finally {
    await client.close();
  }
  assert.deepEqual(b.runs(), []);
});

test("arguments never become flags and never grant writes: -rf, --help and -1 as operands are refused on run, exec and MCP; allow_write as an argument does not allow a write", async () => {
  const b = bank();
  for (const amount of ["-rf", "--help", "-1"]) {
    const dry = await b.hcp(["run", b.root, "note", "--arg", `amount=${amount}`, "--dry-run", "--json"]);
    assert.equal(dry.code, 1, dry.stderr);
    assert.match(dry.stderr, /flag_injection/);
  }
  const lines = ["-rf", "--help"].map((amount, i) => JSON.stringify({ id: i, pack: "bank", verb: "note", args: { amount }, dry_run: true }));
  const s = await execSession([b.root], lines, ["--allow-write"], { env: b.env });
  assert.deepEqual(
    s.responses.map((r) => r.error?.code),
    ["flag_injection", "flag_injection"],
  );
  const { client } = await b.mcp();
  try {
    const flag = (await client.callTool({ name: "bank_note", arguments: { amount: "--help", dry_run: true } })) as { structuredContent?: { error?: { code: string } } };
    assert.equal(flag.structuredContent?.error?.code, "flag_injection");
    // `touch` takes any object: the would-be permissions are just arguments, and the server has no --allow-write.
    for (const claim of [{ allow_write: true }, { allowWrite: true }, { "allow-write": true }]) {
      const r = (await client.callTool({ name: "bank_touch", arguments: claim })) as { structuredContent?: { error?: { code: string } } };
      assert.equal(r.structuredContent?.error?.code, "write_not_allowed", JSON.stringify(r));
    }
  } finally {
    await client.close();
  }
  assert.deepEqual(b.runs(), []);
});
