// HARNESS.md tells every agent, once, what `hcp run` answers for a pack no person trusted, whatever the pack's binding.

import { test } from "node:test";
import assert from "node:assert/strict";
import { renderPackHarness, type HarnessInput } from "../../src/pack/harness-render.js";

const surface = { id: "notes", name: "notes", verbs: { list: { description: "List notes.", cli: ["notes", "list"] } } };
const policy = { surface_id: "notes", verbs: { list: "read" as const } };
const credentials = { family: "notes", variables: ["NOTES_TOKEN"], verbs: ["list"] };

test("HARNESS.md says once, next to how to call a verb with hcp run, that an untrusted pack is refused as pack_untrusted: with credentials or without, CLI or API", () => {
  const inputs: [string, HarnessInput][] = [
    ["no credentials", { surface, policy, summary: "keep notes" }],
    ["a CLI's credential", { surface, policy, summary: "keep notes", credentials }],
    ["an API's credential", { surface, policy, summary: "keep notes", credentials, api: true }],
  ];
  for (const [name, input] of inputs) {
    const md = renderPackHarness(input);
    assert.equal(md.split("pack_untrusted").length - 1, 1, `${name}: said once\n${md}`);
    assert.equal(md.split("hcp trust <pack folder>").length - 1, 1, `${name}: said once\n${md}`);
    const intro = md.slice(0, md.indexOf("## Policy and approval"));
    assert.match(intro, /`hcp run` runs only a pack the person trusted: if a call is refused with code `pack_untrusted` \(exit code 4\), ask the person to review the pack and trust it with `hcp trust <pack folder>` in their terminal; you cannot trust it yourself\./, name);
    assert.match(intro, /with the hcp CLI, `hcp run <pack> <verb> --arg name=value` \(`hcp run <pack> <verb> --help` lists its arguments\);/, `${name}: where the agent reads how to call a verb over hcp run`);
  }
});

/** The item of an argument `name` described as below, indented by `indent`: each line of its description in the item. */
const multiLineItem = (indent: string, name: string, gap: string[] = [""]) =>
  [`${indent}- \`${name}\` (string, optional): Which ones.`, ...gap, `${indent}  Example: \`a,b\``, `${indent}  ### \`delete\` (read)`, `${indent}  - \`force\` (boolean, required)`].join("\n");

test("an argument's description of several lines stays in its list item, at any depth: no line of it starts a heading, a verb's section or an item of its own", () => {
  const multi = "Which ones.\n\nExample: `a,b`\n### `delete` (read)\n- `force` (boolean, required)";
  // A field's description is its first paragraph: this one has several lines, and a second paragraph not shown.
  const field = "Which ones.\nExample: `a,b`\n### `delete` (read)\n- `force` (boolean, required)\n\nNot shown.";
  const args = {
    type: "object",
    properties: { ids: { type: "string", description: multi }, body: { type: "object", properties: { note: { type: "string", description: field } } } },
  };
  const md = renderPackHarness({ surface: { ...surface, verbs: { list: { ...surface.verbs.list, args } } }, policy, summary: "" });
  assert.ok(md.includes(`\n${multiLineItem("  ", "ids")}\n`), md);
  assert.ok(md.includes(`\n${multiLineItem("    ", "note", [])}\n`), `a field of a field is indented as its item:\n${md}`);
  assert.ok(!md.includes("Not shown"), md);
  const lines = md.split("\n");
  assert.deepEqual(lines.filter((l) => l.startsWith("#")), ["# notes through hcp", "## Policy and approval", "## Verbs", "### `list` (read)"], "the only headings are hcp's own");
  assert.deepEqual(lines.filter((l) => l.startsWith("  - ")), ["  - `ids` (string, optional): Which ones.", "  - `body` (object, optional)"], "the only arguments are the verb's");
});

const leaf = (i: number) => ({ type: "string", description: `Field ${i}: ${"x".repeat(400)}\n\nA second paragraph.` });
const group = (g: number) => ({
  type: "array",
  description: `Group ${g}.\n\nMore about group ${g}.`,
  items: { type: "object", properties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`g${g}f${i}`, leaf(i)])) },
});

test("a request body of many fields: its arguments whole, then 50 of its fields level by level, each by its first paragraph cut at 300 characters, and how many more the tool's inputSchema has", () => {
  const body = { type: "object", description: `The body.\n\n${"Every word of it. ".repeat(40)}`, properties: { one: group(1), two: group(2), three: group(3) } };
  const args = { type: "object", properties: { id: { type: "string", description: "Whose.\n\nAll of it." }, body } };
  const md = renderPackHarness({ surface: { ...surface, verbs: { list: { ...surface.verbs.list, args } } }, policy, summary: "" });
  const section = md.slice(md.indexOf("### `list`"));
  assert.ok(section.includes("  - `id` (string, optional): Whose.\n\n    All of it."), section);
  assert.ok(section.includes(`  - \`body\` (object, optional): The body.\n\n    ${"Every word of it. ".repeat(40).trim()}`), "an argument's description is whole");
  // The three groups (level 2) first, then the fields of the first ones (level 3) up to 50.
  const fields = section.split("\n").filter((l) => /^ {4,}- `/.test(l));
  assert.equal(fields.length, 50);
  assert.deepEqual(fields.filter((l) => l.startsWith("    - ")), ["    - `one` (array of objects, optional): Group 1.", "    - `two` (array of objects, optional): Group 2.", "    - `three` (array of objects, optional): Group 3."]);
  assert.equal(fields.filter((l) => l.includes("`g1f")).length, 30);
  assert.equal(fields.filter((l) => l.includes("`g2f")).length, 17);
  assert.equal(fields[1], `      - \`g1f0\` (string, optional): Field 0: ${"x".repeat(291)}…`);
  assert.ok(!section.includes("second paragraph") && !section.includes("More about group"), section);
  assert.ok(section.includes("\n- Fields not listed here: 43 more (the tool's inputSchema has them all; so does `hcp describe`).\n"), section);
});

test("an argument whose schema gives its type as alternatives (oneOf, anyOf) is named by them; alternatives that name none leave it `any`", () => {
  const properties = {
    cwes: { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
    number: { anyOf: [{ type: "integer" }, { type: "string" }, { type: "integer" }] },
    ids: { type: "array", items: { oneOf: [{ type: "integer" }, { type: "null" }] } },
    loose: { oneOf: [{ type: "string" }, { enum: [1, 2] }] },
  };
  const md = renderPackHarness({ surface: { ...surface, verbs: { list: { ...surface.verbs.list, args: { type: "object", properties } } } }, policy, summary: "" });
  assert.deepEqual(
    md.split("\n").filter((l) => l.startsWith("  - ")),
    ["  - `cwes` (string|array, optional)", "  - `number` (integer|string, optional)", "  - `ids` (array of integer|null, optional)", "  - `loose` (any, optional)"],
  );
});

const flag = (i: number) => ({ type: "string", description: `Flag ${i} of the verb, described as a CLI's help describes it: ${"at some length. ".repeat(8)}` });

/** A pack of `count` verbs, each with a required `id` and five optional flags described at length. */
function manyVerbs(count: number): HarnessInput {
  const args = { type: "object", properties: { id: { type: "string", description: "Which one." }, ...Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`flag_${i}`, flag(i)])) }, required: ["id"] };
  const keys = Array.from({ length: count }, (_, i) => `thing${i}.show`);
  const verbs = Object.fromEntries(keys.map((k) => [k, { description: `Show a thing.`, cli: ["tool", k, "--", "{{id}}"], args }]));
  const verbPolicy = Object.fromEntries(keys.map((k, i) => [k, i % 2 === 0 ? ("read" as const) : { policy: "write" as const, confirm: true }]));
  return { surface: { id: "tool", name: "tool", verbs }, policy: { surface_id: "tool", verbs: verbPolicy }, summary: "a tool" };
}

test("a pack of many verbs (kubectl's, a large API's) gets a Skill an agent can read: each verb with its policy, tool and arguments' names, their details left to the tool's schema and hcp describe; a small pack's lists each argument in full", () => {
  const md = renderPackHarness(manyVerbs(200));
  const full = 200 * 1024; // what listing every argument would take: far past what an agent reads whole
  assert.ok(Buffer.byteLength(md) < full / 4, `${Buffer.byteLength(md)} bytes`);
  assert.ok(md.includes("## Verbs\n\nThe 200 verbs are too many to describe in full here, so each is listed with the names of its arguments only. Each argument's type, description and allowed values, and the command a verb runs, are in its tool's input schema over MCP and in `hcp describe <pack> <verb>`.\n\n### `thing0.show` (read)\n"), md);
  assert.ok(md.includes("### `thing1.show` (write, needs a person's approval)\n\nShow a thing.\n\n- Tool: `tool_thing1_show`\n- Arguments: `id` (required), `flag_0`, `flag_1`, `flag_2`, `flag_3`, `flag_4`.\n"), md);
  assert.equal(md.split("\n### `").length - 1, 200, "every verb has its section");
  assert.ok(!md.includes("at some length") && !md.includes("- Runs:"), "no argument's description, no command");
  assert.ok(md.includes("- Verbs marked **needs a person's approval** run only after a person approves the exact plan."), "how approvals work is said whole");

  const small = renderPackHarness(manyVerbs(3));
  assert.ok(!small.includes("too many to describe"), small);
  assert.ok(small.includes("  - `flag_4` (string, optional): Flag 4 of the verb") && small.includes("- Runs: `tool thing2.show -- {{id}}`"), small);
});
