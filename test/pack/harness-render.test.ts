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
    assert.match(intro, /with the hcp CLI, `hcp run <pack> <verb> --arg name=value`/, `${name}: where the agent reads how to call a verb over hcp run`);
  }
});

/** The item of an argument `name` described as below, indented by `indent`: each line of its description in the item. */
const multiLineItem = (indent: string, name: string) =>
  [`${indent}- \`${name}\` (string, optional): Which ones.`, "", `${indent}  Example: \`a,b\``, `${indent}  ### \`delete\` (read)`, `${indent}  - \`force\` (boolean, required)`].join("\n");

test("an argument's description of several lines stays in its list item, at any depth: no line of it starts a heading, a verb's section or an item of its own", () => {
  const multi = "Which ones.\n\nExample: `a,b`\n### `delete` (read)\n- `force` (boolean, required)";
  const args = {
    type: "object",
    properties: { ids: { type: "string", description: multi }, body: { type: "object", properties: { note: { type: "string", description: multi } } } },
  };
  const md = renderPackHarness({ surface: { ...surface, verbs: { list: { ...surface.verbs.list, args } } }, policy, summary: "" });
  assert.ok(md.includes(`\n${multiLineItem("  ", "ids")}\n`), md);
  assert.ok(md.includes(`\n${multiLineItem("    ", "note")}\n`), `a field of a field is indented as its item:\n${md}`);
  const lines = md.split("\n");
  assert.deepEqual(lines.filter((l) => l.startsWith("#")), ["# notes through hcp", "## Policy and approval", "## Verbs", "### `list` (read)"], "the only headings are hcp's own");
  assert.deepEqual(lines.filter((l) => l.startsWith("  - ")), ["  - `ids` (string, optional): Which ones.", "  - `body` (object, optional)"], "the only arguments are the verb's");
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
