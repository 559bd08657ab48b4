// Red team: deep JSON from a wrapped program. The agent makes a CLI verb print a few KB of nested brackets:
// parsed, it would be printed indented as megabytes by `hcp run --json` (quadratic in the depth) and crash an MCP
// client that walks it recursively. Output nested deeper than 64 levels must stay text, with no `json` field.

import assert from "node:assert/strict";
import { test } from "node:test";
import { isolatedEnv, probePack } from "./hardening.js";
import { hcp, mcpClient } from "../transports/support.js";

/** The verb prints its argument: the agent chooses what the program writes. */
const say = () =>
  probePack("deep", { say: { description: "Print a text.", cli: ["probe", "run", "{{step}}"], args: { type: "object", properties: { step: { type: "string" } }, required: ["step"] } } }, {}, { default: "deny", verbs: { say: "read" } });
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
/** A hang guard only: each call takes well under a second on a quiet machine. */
const GUARD = { timeoutMs: 60_000 };

test("a CLI verb printing JSON nested past 64 levels (2,000 and 15,000 levels) is text: hcp run --json prints a bounded result with no json field; 64 levels is still JSON", async () => {
  const root = say();
  const env = isolatedEnv();
  for (const levels of [65, 2000, 15_000]) {
    const r = await hcp(["run", root, "say", "--arg", `step=print:${nested(levels)}`, "--json"], { env, ...GUARD });
    assert.equal(r.timedOut, false);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.length < 4 * levels + 4096, `${levels} levels printed as ${r.stdout.length} bytes`);
    const result = JSON.parse(r.stdout) as { stdout: string; json?: unknown };
    assert.equal("json" in result, false, `${levels} levels were parsed`);
    assert.equal(result.stdout, `${nested(levels)}\n`, "stdout stays the text the program wrote");
  }
  const ok = await hcp(["run", root, "say", "--arg", `step=print:${nested(64)}`, "--json"], { env, ...GUARD });
  assert.equal(ok.code, 0, ok.stderr);
  let value = (JSON.parse(ok.stdout) as { json: unknown }).json;
  let depth = 0;
  for (; Array.isArray(value); depth++) value = value[0];
  assert.equal(depth, 64, "64 levels is JSON as usual");
});

test("over MCP, a tool call whose program prints JSON nested 2,000 and 15,000 levels answers promptly with bounded text; the SDK client does not crash and the server goes on", async () => {
  const root = say();
  const { client } = await mcpClient([root], { env: isolatedEnv() });
  try {
    for (const levels of [2000, 15_000]) {
      const call = (await client.callTool({ name: "deep_say", arguments: { step: `print:${nested(levels)}` } })) as { content: { type: string; text: string }[]; structuredContent?: { json?: unknown; stdout?: string } };
      assert.equal(call.structuredContent?.json, undefined, `${levels} levels were parsed`);
      const size = JSON.stringify(call).length;
      assert.ok(size < 8 * levels + 8192, `${levels} levels answered with ${size} bytes`);
      assert.ok(call.content.some((c) => c.text.includes(nested(levels))), "the text comes back as written");
    }
    const next = (await client.callTool({ name: "deep_say", arguments: { step: "print:[[1]]" } })) as { structuredContent?: { json?: unknown } };
    assert.deepEqual(next.structuredContent?.json, [[1]], "the server went on, and shallow JSON is still parsed");
  } finally {
    await client.close();
  }
});
