// Packs generated from agentmeta documents (hcp.md §10): rgref and the rungrad CLI validate, verbs/policy/args as specified.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentMetaDocument } from "../../src/agentmeta/types.js";
import { effectivePolicy, packFromAgentMeta, packIdOf, parseHarness, parsePolicy, parseSurface, placeholderName, type GeneratedPack } from "../../src/pack/index.js";
import { readFixtureJson } from "./helpers.js";

// expect_agentmeta is exactly fromManifest(manifest) for these fixtures.
const agentmeta = (file: string): AgentMetaDocument =>
  (readFixtureJson(`examples/rungrad/${file}`) as { expect_agentmeta: AgentMetaDocument }).expect_agentmeta;

/** Round-trips through JSON as a written pack would, and validates all three files. */
function validate(g: GeneratedPack) {
  const s = parseSurface(JSON.parse(JSON.stringify(g.surface)));
  const p = parsePolicy(JSON.parse(JSON.stringify(g.policy)), s.surface);
  const h = parseHarness(g.harness(g.policy));
  return { surface: s.surface!, policy: p.policy, issues: [...s.issues, ...p.issues, ...h.issues], harness: h.harness };
}

test("the rgref pack validates with no issue: one verb per leaf, update split in two, bound to a local credential", () => {
  const g = packFromAgentMeta(agentmeta("rgref_reference.json"), { bin: "./bin/rgref" });
  const v = validate(g);
  assert.deepEqual(v.issues, []);
  assert.deepEqual(g.notes, []);
  assert.equal(g.surface.id, "rgref");
  assert.equal(g.surface.cliBin, "rgref");
  assert.equal(g.surface.kind, "wrap");
  assert.deepEqual(g.surface.wrap, { bin: "./bin/rgref" });
  assert.deepEqual(Object.keys(g.surface.verbs), ["item.create", "item.delete", "item.get", "item.list", "update.check", "update", "whoami"]);
  assert.deepEqual(g.surface.binding, { mode: "user", hub: "local-credential", family: "rgref" }, "whoami requires auth");
  assert.deepEqual(g.policy.credentials, ["RGREF_TOKEN"]);
});

test("rgref verbs: cli from the usage template, canonical --json --no-prompt, --confirm for destructive, operands after --", () => {
  const { verbs } = packFromAgentMeta(agentmeta("rgref_reference.json"), { bin: "rgref" }).surface;
  assert.deepEqual(verbs["item.list"], {
    description: "List items",
    cli: ["rgref", "item", "list", "--json", "--no-prompt"],
    args: { type: "object", properties: {}, additionalProperties: false },
    policy: "read",
  });
  assert.deepEqual(verbs["item.get"]!.cli, ["rgref", "item", "get", "--json", "--no-prompt", "--", "{{name}}"]);
  assert.deepEqual(verbs["item.get"]!.args, { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false });
  assert.deepEqual(verbs["item.create"]!.cli, ["rgref", "item", "create", "--json", "--no-prompt", "--", "{{name}}"]);
  assert.equal(verbs["item.create"]!.policy, "write");
  assert.deepEqual(verbs["item.delete"]!.cli, ["rgref", "item", "delete", "--json", "--no-prompt", "--confirm", "--", "{{name}}"]);
  assert.deepEqual(Object.keys((verbs["item.delete"]!.args as { properties: object }).properties), ["name"], "--confirm is not an agent argument");
  assert.deepEqual(verbs["update.check"], {
    description: "Check for an update without installing it",
    cli: ["rgref", "update", "--check", "--json", "--no-prompt"],
    args: { type: "object", properties: {}, additionalProperties: false },
    policy: "read",
  });
  assert.deepEqual(verbs["update"]!.cli, ["rgref", "update", "--json", "--no-prompt"]);
  assert.equal(verbs["update"]!.policy, "write");
});

test("rgref policy: read unless mutating, destructive gets write + confirm", () => {
  const g = packFromAgentMeta(agentmeta("rgref_reference.json"), { bin: "rgref" });
  assert.deepEqual(g.policy, {
    surface_id: "rgref",
    default: "deny",
    verbs: {
      "item.create": "write",
      "item.delete": { policy: "write", confirm: true },
      "item.get": "read",
      "item.list": "read",
      "update.check": "read",
      update: "write",
      whoami: "read",
    },
    credentials: ["RGREF_TOKEN"],
    // What an MCP client takes in one answer, not the 1 MiB of a pack without limits.
    limits: { max_output_bytes: 65536 },
  });
  const v = validate(g);
  const eff = (k: string) => effectivePolicy(v, k);
  assert.deepEqual([eff("item.delete").policy, eff("item.delete").confirm], ["write", "person"]);
  assert.deepEqual([eff("item.list").policy, eff("item.list").confirm], ["read", false]);
});

test("the rungrad CLI pack: operands, string/bool/stringArray flags with - mapped to _", () => {
  const g = packFromAgentMeta(agentmeta("rungrad_cli.json"), { bin: "/usr/local/bin/rungrad" });
  assert.deepEqual(validate(g).issues, []);
  assert.deepEqual(Object.keys(g.surface.verbs), ["new", "score"]);
  const nw = g.surface.verbs["new"]!;
  assert.deepEqual(nw.cli!.slice(0, 5), ["rungrad", "new", "--json", "--no-prompt", "--description={{description}}"]);
  assert.deepEqual(nw.cli!.slice(-2), ["--", "{{name}}"], "the operand last, after --");
  assert.ok(nw.cli!.includes("--docs-label={{docs_label}}"));
  const props = (nw.args as { properties: Record<string, { type: string; items?: unknown }> }).properties;
  assert.deepEqual(props["name"], { type: "string" });
  assert.equal(props["docs_label"]!.type, "string");
  assert.equal(props["product_profile"]!.type, "boolean");
  assert.deepEqual([props["example"]!.type, props["example"]!.items], ["array", { type: "string" }]);
  assert.deepEqual((nw.args as { required: string[] }).required, ["name"]);
  assert.deepEqual(g.policy.verbs, { new: "write", score: "read" });
  assert.deepEqual(g.surface.verbs["score"]!.cli!.slice(0, 4), ["rungrad", "score", "--json", "--no-prompt"]);
  assert.deepEqual(g.surface.verbs["score"]!.cli!.slice(-2), ["--", "{{target}}"]);
});

test("HARNESS.md is written for the pack: tool names, argument names, policy, approval and credentials", () => {
  const g = packFromAgentMeta(agentmeta("rgref_reference.json"), { bin: "rgref" });
  const h = parseHarness(g.harness(g.policy));
  assert.deepEqual(h.issues, []);
  assert.equal(h.harness.frontmatter?.name, "rgref");
  const body = h.harness.body;
  assert.match(body, /### `item\.delete` \(write, needs a person's approval\)/);
  assert.match(body, /- Tool: `rgref_item_delete`\n- Arguments:\n {2}- `name` \(string, required\)/);
  assert.match(body, /hcp approve <plan_id>/);
  assert.match(body, /### `whoami` \(read, needs credentials\)/);
  assert.match(body, /RGREF_TOKEN/);
  assert.doesNotMatch(body, /<name>|do not use|shell instead/i, "no usage placeholders, never steers away from hcp");
});

test("names that do not fit are cleaned or skipped and reported; a root-only tool gets one verb", () => {
  assert.equal(packIdOf("My Tool!"), "my-tool-");
  assert.equal(packIdOf("__"), "pack");
  const base = agentmeta("rgref_reference.json");
  const cmd = base.commands.find((c) => c.path.join(" ") === "item list")!;
  const doc: AgentMetaDocument = {
    ...base,
    tool_name: "RgRef",
    commands: [
      { ...cmd, path: ["Item", "List"], usage_template: "RgRef Item List [filter] <ids>..." },
      { ...cmd, path: ["item", "list"] },
      { ...cmd, path: ["_"] },
    ],
  };
  const g = packFromAgentMeta(doc, { bin: "rgref" });
  assert.deepEqual(validate(g).issues, []);
  assert.equal(g.surface.id, "rgref");
  assert.deepEqual(Object.keys(g.surface.verbs), ["item.list"]);
  assert.deepEqual(g.surface.verbs["item.list"]!.cli, ["RgRef", "Item", "List", "--json", "--no-prompt", "--", "{{filter}}", "{{ids}}"]);
  assert.deepEqual(g.surface.verbs["item.list"]!.args, {
    type: "object",
    properties: { filter: { type: "string" }, ids: { type: "array", items: { type: "string" }, minItems: 1 } },
    required: ["filter", "ids"],
    additionalProperties: false,
  });
  assert.equal(g.notes.length, 4, g.notes.join("\n"));
  const root = base.commands.find((c) => c.is_root)!;
  const only = packFromAgentMeta({ ...base, commands: [{ ...root, has_children: false }] }, { bin: "rgref" });
  assert.deepEqual(Object.keys(only.surface.verbs), ["rgref"]);
  assert.deepEqual(validate(only).issues, []);
});

test("a flag or operand named like a reserved placeholder gets a usable name", () => {
  assert.equal(placeholderName("constructor"), "_constructor");
  assert.equal(placeholderName("__proto__"), "___proto__");
  assert.equal(placeholderName("prototype"), "_prototype");
  assert.equal(placeholderName("proto-type"), "proto_type");
});

test("an operand named verb is argument _verb ({{verb}} belongs to wrap.argv_template); a group of words [-- args...] is left out", () => {
  const base = agentmeta("rgref_reference.json");
  const cmd = base.commands.find((c) => c.path.join(" ") === "item get")!;
  const doc: AgentMetaDocument = { ...base, commands: [{ ...cmd, usage_template: "rgref item get <pack> [verb] [-- subcommand...]" }] };
  const g = packFromAgentMeta(doc, { bin: "rgref" });
  assert.deepEqual(validate(g).issues, []);
  assert.deepEqual(g.surface.verbs["item.get"]!.cli, ["rgref", "item", "get", "--json", "--no-prompt", "--", "{{pack}}", "{{_verb}}"]);
  assert.deepEqual(Object.keys((g.surface.verbs["item.get"]!.args as { properties: object }).properties), ["pack", "_verb"]);
});

test("a command with subcommands: its first operand may not name one of them, nor help", () => {
  const base = agentmeta("rgref_reference.json");
  const item = base.commands.find((c) => c.path.join(" ") === "item")!;
  const doc: AgentMetaDocument = { ...base, commands: [...base.commands.filter((c) => c !== item), { ...item, usage_template: "rgref item <names>..." }] };
  const g = packFromAgentMeta(doc, { bin: "rgref" });
  assert.deepEqual(validate(g).issues, []);
  assert.deepEqual(g.surface.verbs["item"]!.cli, ["rgref", "item", "--", "{{names}}"]);
  const names = (g.surface.verbs["item"]!.args as { properties: Record<string, unknown> }).properties["names"];
  assert.deepEqual(names, { type: "array", items: { type: "string" }, minItems: 1, prefixItems: [{ not: { enum: ["create", "delete", "get", "list", "help"] } }] });
});

test("the root command's \"hcp/policy\" env becomes the policy's env: valid names once each, in order; the rest left out and noted", () => {
  const base = agentmeta("rgref_reference.json");
  const withEnv = (c: (typeof base.commands)[number], env: unknown) => ({ ...c, extensions: { "hcp/policy": { env } } }) as typeof c;
  const commands = base.commands.map((c) => (c.is_root ? withEnv(c, ["RGREF_HOME", "bad-name", 7, "RGREF_HOME", "_X1"]) : c.path.join(" ") === "item list" ? withEnv(c, ["ITEM_ONLY"]) : c));
  const g = packFromAgentMeta({ ...base, commands }, { bin: "rgref" });
  assert.deepEqual(validate(g).issues, []);
  assert.deepEqual(g.policy.env, ["RGREF_HOME", "_X1"]);
  const root = base.commands.find((c) => c.is_root)!.path.join(" ");
  assert.deepEqual(
    g.notes.filter((n) => n.includes("hcp/policy")),
    [
      `command "item list": "hcp/policy" env left out: it is read on the root command only`,
      `root command "${root}": "hcp/policy" env[1] left out: env takes variable names matching ^[A-Za-z_][A-Za-z0-9_]*$`,
      `root command "${root}": "hcp/policy" env[2] left out: env takes variable names matching ^[A-Za-z_][A-Za-z0-9_]*$`,
    ],
  );
  const notAList = packFromAgentMeta({ ...base, commands: base.commands.map((c) => (c.is_root ? withEnv(c, "RGREF_HOME") : c)) }, { bin: "rgref" });
  assert.equal(notAList.policy.env, undefined);
  assert.deepEqual(notAList.notes.filter((n) => n.includes("hcp/policy")), [`root command "${root}": "hcp/policy" env left out: it must be an array of variable names`]);
  assert.equal(packFromAgentMeta(base, { bin: "rgref" }).policy.env, undefined, "no env asked, none written");
});

test("a flag given once per value (pflag's intSlice, stringToString, stringArray) is an array of strings, one token each; pflag's float64 a number", () => {
  const doc = structuredClone(agentmeta("rungrad_cli.json"));
  const nw = doc.commands.find((c) => c.path.join(" ") === "new")!;
  for (const [name, type] of [["ports", "intSlice"], ["labels", "stringToString"], ["ratio", "float64"], ["keep", "countOrText"]] as const) nw.local_flags.push({ name, shorthand: "", usage: "", default: "", type, required: false });
  const props = (packFromAgentMeta(doc, { bin: "rungrad" }).surface.verbs["new"]!.args as { properties: Record<string, unknown> }).properties;
  assert.deepEqual(props["ports"], { type: "array", items: { type: "string" } });
  assert.deepEqual(props["labels"], { type: "array", items: { type: "string" } });
  assert.deepEqual(props["ratio"], { type: "number" });
  // A cobra flag whose usage names its value a count (restic's --keep-last n): the agent's 3, or restic's unlimited.
  assert.deepEqual(props["keep"], { type: ["integer", "string"] });
});
