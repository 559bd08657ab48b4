import assert from "node:assert/strict";
import { test } from "node:test";
import { toolName } from "../../src/pack/fields.js";
import { SERVE_FLAGS, heavyTools, packToolWeights, type ToolWeight } from "../../src/pack/mcp-weight.js";

const keys = (n: number, start: string) => Array.from({ length: n }, (_, i) => `${start}${i}`);
const served = (name: string, description: string, inputSchema: unknown) => JSON.stringify({ name, description, inputSchema }).length;
const light = (verbs: readonly string[], read = false): ToolWeight[] => verbs.map((verb) => ({ pack: "gh", verb, read, chars: 100 }));

test("a pack of more than 128 tools is noted, with a --tools glob that serves exactly its largest group of verbs", () => {
  assert.deepEqual(heavyTools(light(keys(128, "repos-get-")), SERVE_FLAGS), [], "128 tools: no note");
  for (const [sep, glob] of [
    ["-", "gh_repos-*"],
    [".", "gh_repos_*"],
  ] as const) {
    const verbs = [...keys(100, `repos${sep}get${sep}`), ...keys(40, `issues${sep}list${sep}`), `repository${sep}x`, "repos"];
    const [note] = heavyTools(light(verbs), SERVE_FLAGS);
    assert.equal(note, `142 MCP tools are more than many clients take at once (128 is a common limit): serve a part of them with hcp serve --mcp's --tools, --exclude or --read-only (--tools '${glob}' serves its 100 repos verbs)`);
    // The glob (letters, _ and - before its one *) matches those 100 tools and no other.
    const matches = new RegExp(`^${glob.replace("*", ".*")}$`);
    assert.equal(verbs.filter((v) => matches.test(toolName("gh", v))).length, 100);
  }
});

test("tools heavier than 25,000 tokens (4 characters each) are noted with their weight, what --read-only would serve and weigh, and the largest group; lighter ones are not", () => {
  // 99 tools of 2,500 characters: about 61,900 tokens, as kubectl's are.
  const tools = keys(99, "create.").map((verb, i) => ({ pack: "kubectl", verb, read: i < 21, chars: 2500 }));
  assert.deepEqual(heavyTools(tools, "--tools, --exclude or --read-only"), [
    "99 MCP tools come to about 61,900 tokens (their names, descriptions and input schemas), which a client puts before the agent on every turn (Claude Code warns past 25,000): serve a part of them with --tools, --exclude or --read-only (--read-only serves its 21 reads, about 13,100 tokens; --tools 'kubectl_create_*' serves its 99 create verbs)",
  ]);
  assert.deepEqual(heavyTools(tools.slice(0, 40), SERVE_FLAGS), [], "40 tools of 25,000 tokens exactly: no note");
  const both = heavyTools(light(keys(200, "x")).map((t) => ({ ...t, chars: 1000 })), SERVE_FLAGS);
  assert.match(both[0]!, /^200 MCP tools are more than many clients take at once \(128 is a common limit\) and come to about 50,000 tokens .*: serve a part of them with hcp serve --mcp's --tools, --exclude or --read-only$/, "no read, no group: no example");
});

test("hcp init weighs each verb its policy.json serves as hcp serve makes its tool: name, description with the sentence of its policy, input schema with dry_run and confirm", () => {
  const verbs = { get: { description: "Get it.", args: { type: "object", properties: { id: { type: "string" } } } }, del: { description: "Delete it." }, hidden: { description: "x".repeat(1000) } };
  const weights = packToolWeights({ id: "p", name: "P", verbs }, { surface_id: "p", default: "deny", verbs: { get: "read", del: { policy: "write", confirm: true } } });
  assert.deepEqual(
    weights.map((w) => [w.verb, w.read]),
    [
      ["get", true],
      ["del", false],
    ],
  );
  assert.equal(weights[0]!.chars, served("p_get", "Get it. Read-only: it changes nothing.", verbs.get.args));
  const del = served("p_del", "Delete it. A write (it may change things), needs a person's approval of each run (call with dry_run: true to see the plan first), and is refused: this server was started without --allow-write.", {
    type: "object",
    properties: {
      dry_run: { type: "boolean", description: "Return the plan and its plan_id; run nothing." },
      confirm: { type: "string", description: "The plan_id of a dry run of these same arguments: the plan a person approved (or, for a plan check, the one you restate)." },
    },
  });
  assert.equal(weights[1]!.chars, del);
});
