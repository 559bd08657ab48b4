// surface.json validation: the §3.8 example, every §3.7 row and hcp.md §2 rule, and multi-issue reports.

import { test } from "node:test";
import assert from "node:assert/strict";
import { deriveMeta, formatIssue, parseSurface, validateSurface, type Issue } from "../../src/pack/index.js";
import { codes, errors, ledger } from "./helpers.js";

function only(issues: Issue[], severity: Issue["severity"] = "error"): Issue {
  const found = issues.filter((i) => i.severity === severity);
  assert.equal(found.length, 1, JSON.stringify(issues));
  return found[0]!;
}

function withDoc(patch: (d: Record<string, unknown>) => void): Issue[] {
  const d = ledger();
  patch(d);
  return validateSurface(d);
}

test("the §3.8 ledger example validates with no issue, its bin outside the pack", () => {
  const r = parseSurface(ledger());
  assert.deepEqual(r.issues, []);
  assert.equal(r.surface?.wrap?.bin, "../../bins/ledger.mjs");
  assert.equal(r.surface?.kind, "wrap");
  assert.deepEqual(Object.keys(r.surface!.verbs), ["setup.status", "setup.apply", "connect", "status", "list", "transfer"]);
});

test("the ledger meta is derived in §3 key order", () => {
  const { meta } = parseSurface(ledger());
  assert.deepEqual(meta, {
    hcp: 1,
    pack_id: "ledger",
    adapter_kind: "wrap",
    binding: { mode: "local", hub: "local-credential", family: "ledger" },
    wrap: { bin: "../../bins/ledger.mjs", argv_template: ["{{verb}}"] },
    plane: "runtime",
    transports: ["cli", "json_exec"],
  });
  assert.deepEqual(Object.keys(meta!), ["hcp", "pack_id", "adapter_kind", "binding", "wrap", "plane", "transports"]);
});

// §3.7 rows: exact code, path and message.
const rows: [string, (d: Record<string, unknown>) => void, string, string, string][] = [
  ["id missing", (d) => delete d.id, "invalid_meta", "id", "id is required"],
  ["wrap without wrap.bin", (d) => delete (d.wrap as Record<string, unknown>).bin, "binding", "wrap.bin", "wrap adapter requires wrap.bin"],
  ["wrap without wrap", (d) => delete d.wrap, "binding", "wrap.bin", "wrap adapter requires wrap.bin"],
  ["wrap with empty verbs, no pass_through", (d) => (d.verbs = {}), "wrap", "verbs", "wrap requires named commands or pass_through"],
  ["control plane, explicit non-mothership mode", (d) => (d.plane = "control"), "binding", "binding.mode", "control plane packs default Binding mothership"],
  ["openapi without openapi", (d) => { d.kind = "openapi"; delete d.wrap; }, "invalid_meta", "openapi", "openapi adapter requires openapi ref"],
  ["sense_only without triggers", (d) => { d.kind = "sense_only"; delete d.wrap; }, "invalid_meta", "stimulusTriggers", "sense_only adapter requires at least one stimulus trigger_ref"],
  ["sense_only with empty triggers", (d) => { d.kind = "sense_only"; delete d.wrap; d.stimulusTriggers = []; }, "invalid_meta", "stimulusTriggers", "sense_only adapter requires at least one stimulus trigger_ref"],
];
for (const [name, patch, code, path, message] of rows) {
  test(`§3.7: ${name}`, () => {
    const i = only(withDoc(patch));
    assert.deepEqual([i.code, i.path, i.message, i.file], [code, path, message, "surface.json"]);
  });
}

test("§3.7: id not a pack_id", () => {
  for (const bad of ["Ledger", "", "-x", "a b", 7, "a".repeat(129)]) {
    const i = only(withDoc((d) => (d.id = bad)));
    assert.deepEqual([i.code, i.path], ["invalid_meta", "id"]);
    assert.match(i.message, /pack_id/);
  }
  assert.deepEqual(withDoc((d) => (d.id = "a".repeat(128))), []);
});

test("control plane without binding, or binding without mode, defaults to mothership", () => {
  const d = ledger();
  d.plane = "control";
  delete d.binding;
  const r = parseSurface(d);
  assert.deepEqual(r.issues, []);
  assert.deepEqual(r.meta?.binding, { mode: "mothership" });
  d.binding = { hub: "none" };
  assert.deepEqual(parseSurface(d).surface?.binding, { mode: "mothership", hub: "none" });
  d.binding = { mode: "mothership" };
  assert.deepEqual(validateSurface(d), []);
});

// hcp.md §2 rules: [name, patch, expected [code, path] of the one error].
const rules: [string, (d: Record<string, unknown>) => void, string, string][] = [
  ["document not an object", () => {}, "invalid_meta", ""],
  ["name not a string", (d) => (d.name = 1), "invalid_meta", "name"],
  ["cliBin not a string", (d) => (d.cliBin = ["x"]), "invalid_meta", "cliBin"],
  ["skill_url not absolute", (d) => (d.skill_url = "skills/x.md"), "invalid_meta", "skill_url"],
  ["kind unknown", (d) => (d.kind = "shell"), "invalid_meta", "kind"],
  ["adapter_kind unknown", (d) => { delete d.kind; d.adapter_kind = "shell"; }, "invalid_meta", "adapter_kind"],
  ["kind and adapter_kind differ", (d) => (d.adapter_kind = "composite"), "invalid_meta", "kind"],
  ["plane unknown", (d) => (d.plane = "data"), "invalid_meta", "plane"],
  ["transports not an array", (d) => (d.transports = "cli"), "invalid_meta", "transports"],
  ["transports unknown value", (d) => (d.transports = ["cli", "http"]), "invalid_meta", "transports[1]"],
  ["transports duplicate", (d) => (d.transports = ["cli", "cli"]), "invalid_meta", "transports[1]"],
  ["binding not an object", (d) => (d.binding = "local"), "invalid_meta", "binding"],
  ["binding mode unknown", (d) => (d.binding = { mode: "remote" }), "invalid_meta", "binding.mode"],
  ["binding hub unknown", (d) => (d.binding = { hub: "vault" }), "invalid_meta", "binding.hub"],
  ["binding family empty", (d) => (d.binding = { family: "" }), "invalid_meta", "binding.family"],
  ["binding connect_provider_id too long", (d) => (d.binding = { connect_provider_id: "x".repeat(129) }), "invalid_meta", "binding.connect_provider_id"],
  ["binding unknown field", (d) => (d.binding = { mode: "local", region: "eu" }), "binding", "binding.region"],
  ["wrap not an object", (d) => { d.kind = "composite"; d.wrap = "ledger"; }, "invalid_meta", "wrap"],
  ["wrap.bin too long", (d) => (d.wrap = { bin: "b".repeat(129) }), "invalid_meta", "wrap.bin"],
  ["wrap.bin empty", (d) => (d.wrap = { bin: "" }), "invalid_meta", "wrap.bin"],
  ["wrap unknown field", (d) => (d.wrap = { bin: "x", shell: true }), "invalid_meta", "wrap.shell"],
  ["argv_template too long", (d) => (d.wrap = { bin: "x", argv_template: Array(65).fill("a") }), "invalid_meta", "wrap.argv_template"],
  ["argv_template bad placeholder", (d) => (d.wrap = { bin: "x", argv_template: ["{{verb}}", "{{ x }}"] }), "invalid_meta", "wrap.argv_template[1]"],
  ["argv_template {{verb}} as flag value", (d) => (d.wrap = { bin: "x", argv_template: ["--v={{verb}}"] }), "invalid_meta", "wrap.argv_template[0]"],
  ["agent_env non-string value", (d) => (d.wrap = { bin: "x", agent_env: { A: 1 } }), "invalid_meta", "wrap.agent_env.A"],
  ["openapi with neither url nor path", (d) => (d.openapi = {}), "invalid_meta", "openapi"],
  ["openapi url not absolute", (d) => (d.openapi = { url: "api.json" }), "invalid_meta", "openapi.url"],
  ["openapi absolute path", (d) => (d.openapi = { path: "/etc/api.json" }), "invalid_meta", "openapi.path"],
  ["pass_through on a composite", (d) => { d.kind = "composite"; delete d.wrap; d.pass_through = { allowedSubcommands: ["a"], maxArgv: 2 }; for (const v of Object.values(d.verbs as object)) delete v.cli; }, "invalid_meta", "pass_through"],
  ["pass_through empty allowedSubcommands", (d) => (d.pass_through = { allowedSubcommands: [], maxArgv: 2 }), "invalid_meta", "pass_through.allowedSubcommands"],
  ["pass_through empty subcommand", (d) => (d.pass_through = { allowedSubcommands: [""], maxArgv: 2 }), "invalid_meta", "pass_through.allowedSubcommands[0]"],
  ["pass_through maxArgv 0", (d) => (d.pass_through = { allowedSubcommands: ["a"], maxArgv: 0 }), "invalid_meta", "pass_through.maxArgv"],
  ["pass_through maxArgv not integer", (d) => (d.pass_through = { allowedSubcommands: ["a"], maxArgv: 1.5 }), "invalid_meta", "pass_through.maxArgv"],
  ["verbs absent", (d) => delete d.verbs, "missing_verb", "verbs"],
  ["verbs not an object", (d) => (d.verbs = []), "invalid_meta", "verbs"],
  ["composite with empty verbs", (d) => { d.kind = "composite"; delete d.wrap; d.verbs = {}; }, "missing_verb", "verbs"],
  ["openapi with empty verbs", (d) => { d.kind = "openapi"; delete d.wrap; d.openapi = { path: "api.json" }; d.verbs = {}; }, "missing_verb", "verbs"],
  ["verb key with upper case", (d) => ((d.verbs as Record<string, unknown>)["Setup"] = { description: "x", cli: ["ledger"] }), "invalid_meta", 'verbs["Setup"]'],
  ["verb key with empty segment", (d) => ((d.verbs as Record<string, unknown>)["a..b"] = { description: "x", cli: ["ledger"] }), "invalid_meta", 'verbs["a..b"]'],
  ["verb not an object", (d) => ((d.verbs as Record<string, unknown>).list = "ledger list"), "invalid_meta", 'verbs["list"]'],
  ["verb description not a string", (d) => (verb(d, "list").description = 3), "invalid_meta", 'verbs["list"].description'],
  ["verb cli empty", (d) => (verb(d, "list").cli = []), "invalid_meta", 'verbs["list"].cli'],
  ["verb cli token not a string", (d) => (verb(d, "list").cli = ["ledger", 1]), "invalid_meta", 'verbs["list"].cli[1]'],
  ["verb cli[0] is not cliBin", (d) => (verb(d, "setup.status").cli = ["other", "setup"]), "invalid_meta", 'verbs["setup.status"].cli[0]'],
  ["verb cli[0] a placeholder", (d) => { delete d.cliBin; verb(d, "list").cli = ["{{bin}}"]; }, "invalid_meta", 'verbs["list"].cli[0]'],
  ["verb cli malformed placeholder", (d) => (verb(d, "list").cli = ["ledger", "{{a-b}}"]), "invalid_meta", 'verbs["list"].cli[1]'],
  ["verb cli placeholder inside a token", (d) => (verb(d, "list").cli = ["ledger", "x{{a}}"]), "invalid_meta", 'verbs["list"].cli[1]'],
  ["verb cli placeholder in a flag name", (d) => (verb(d, "list").cli = ["ledger", "--{{a}}=1"]), "invalid_meta", 'verbs["list"].cli[1]'],
  ["verb cli {{verb}}", (d) => (verb(d, "list").cli = ["ledger", "{{verb}}"]), "invalid_meta", 'verbs["list"].cli[1]'],
  ["verb args not an object", (d) => (verb(d, "list").args = true), "invalid_meta", 'verbs["list"].args'],
  ["verb args not type object", (d) => (verb(d, "list").args = { type: "array" }), "invalid_meta", 'verbs["list"].args.type'],
  ["verb args does not compile", (d) => (verb(d, "list").args = { type: "object", properties: { a: { type: "strin" } } }), "invalid_meta", 'verbs["list"].args'],
  ["verb args with an empty enum (meta-schema valid, Ajv refuses)", (d) => (verb(d, "list").args = { type: "object", properties: { a: { enum: [] } } }), "invalid_meta", 'verbs["list"].args'],
  ["verb args with nullable and no type", (d) => (verb(d, "list").args = { type: "object", properties: { a: { nullable: true } } }), "invalid_meta", 'verbs["list"].args'],
  ["verb args misses a placeholder", (d) => (verb(d, "connect").args = { type: "object", properties: { other: { type: "string" } } }), "invalid_meta", 'verbs["connect"].cli[2]'],
  ["verb policy unknown", (d) => (verb(d, "list").policy = "deny"), "invalid_meta", 'verbs["list"].policy'],
  ["trigger without ref", (d) => (d.stimulusTriggers = [{}]), "invalid_meta", "stimulusTriggers[0].ref"],
  ["trigger not an object", (d) => (d.stimulusTriggers = ["x"]), "invalid_meta", "stimulusTriggers[0]"],
  ["stimulusTriggers not an array", (d) => (d.stimulusTriggers = {}), "invalid_meta", "stimulusTriggers"],
  ["harness not a string", (d) => (d.harness = 1), "invalid_meta", "harness"],
];
function verb(d: Record<string, unknown>, key: string): Record<string, unknown> {
  return (d.verbs as Record<string, Record<string, unknown>>)[key]!;
}
for (const [name, patch, code, path] of rules) {
  test(`§2: ${name}`, () => {
    const issues = name === "document not an object" ? validateSurface([ledger()]) : withDoc(patch);
    assert.deepEqual(codes(errors(issues)), [[code, path]], JSON.stringify(issues));
    assert.equal(parseSurface(name === "document not an object" ? null : (() => { const d = ledger(); patch(d); return d; })()).surface, null);
  });
}

test("non-objects are rejected at the whole document", () => {
  for (const doc of [null, 1, "x", [], true, undefined]) {
    assert.deepEqual(codes(validateSurface(doc)), [["invalid_meta", ""]]);
  }
});

test("verb args covering every placeholder, flag placeholders included, are accepted", () => {
  const issues = withDoc((d) => {
    verb(d, "transfer").args = { type: "object", properties: { amount: { type: "string" }, payee: { type: "string" } }, required: ["amount"] };
    verb(d, "list").cli = ["ledger", "list", "--limit={{limit}}", "-f={{fmt}}"];
    verb(d, "list").args = { type: "object", properties: { limit: { type: "integer" }, fmt: { type: "string" } } };
  });
  assert.deepEqual(issues, []);
});

const why = (p: string, reason: string) => `pattern ${JSON.stringify(p)} cannot be matched in linear time: it ${reason} (hcp matches patterns with RE2, which has no lookaround or backreferences)`;

test("a pattern hcp cannot match in linear time is an error at its JSON path, naming why; patterns it can match pass", () => {
  const issues = withDoc((d) => {
    verb(d, "list").args = {
      type: "object",
      properties: {
        email: { type: "string", pattern: "^(?=[^@]+@)[a-z@.]+$" },
        tags: { type: "array", items: { type: "string", pattern: "^(\\w)\\1$" } },
        nested: { anyOf: [{ type: "string", pattern: "^(?<!x)y" }] },
        "odd name": { type: "string", pattern: "^a{1001}$" },
        fine: { type: "string", pattern: "^([a-z]+)+$" },
      },
      patternProperties: { "^(?!x-)": { type: "string" }, "^x-[a-z]+$": { type: "string" } },
    };
  });
  assert.deepEqual(
    errors(issues).map((i) => formatIssue(i)),
    [
      `surface.json: verbs["list"].args.properties.email.pattern: invalid_meta: ${why("^(?=[^@]+@)[a-z@.]+$", "has a lookahead, (?=…) or (?!…), which needs backtracking")}`,
      `surface.json: verbs["list"].args.properties.tags.items.pattern: invalid_meta: ${why("^(\\w)\\1$", "has a backreference (\\1), which needs backtracking")}`,
      `surface.json: verbs["list"].args.properties.nested.anyOf[0].pattern: invalid_meta: ${why("^(?<!x)y", "has a lookbehind, (?<=…) or (?<!…), which needs backtracking")}`,
      `surface.json: verbs["list"].args.properties["odd name"].pattern: invalid_meta: ${why("^a{1001}$", "has a repeat count above 1000 ({1001})")}`,
      `surface.json: verbs["list"].args.patternProperties["^(?!x-)"]: invalid_meta: ${why("^(?!x-)", "has a lookahead, (?=…) or (?!…), which needs backtracking")}`,
    ],
  );
  assert.equal(parseSurface((() => { const d = ledger(); verb(d, "list").args = { type: "object", properties: { a: { type: "string", pattern: "(?=a)" } } }; return d; })()).surface, null);
  // Nested repetition, classes, Unicode properties and named groups are matched (in linear time): no issue.
  const fine = withDoc((d) => {
    verb(d, "list").args = { type: "object", properties: { a: { type: "string", pattern: "^(?<user>[\\p{L}\\d._-]+)@([a-z]+\\.)+[a-z]{2,}$" }, b: { type: "string", pattern: "^(\\w+\\s?)*$" } } };
  });
  assert.deepEqual(errors(fine), []);
});

test("warnings: unknown top-level field, harness deprecated, missing description, wrap verb without cli", () => {
  const issues = withDoc((d) => {
    d.x_vendor = { a: 1 };
    d["weird key"] = 1;
    d.harness = "# Ledger";
    delete verb(d, "list").description;
    delete verb(d, "status").cli;
    verb(d, "status").since = "1.2";
  });
  assert.deepEqual(codes(issues, "warning"), [
    ["unknown_field", "x_vendor"],
    ["unknown_field", '["weird key"]'],
    ["deprecated", "harness"],
    ["not_conforming", 'verbs["status"].cli'],
    ["unknown_field", 'verbs["status"].since'],
    ["not_conforming", 'verbs["list"].description'],
  ].sort((a, b) => issues.findIndex((i) => i.path === a[1]) - issues.findIndex((i) => i.path === b[1])));
  assert.equal(errors(issues).length, 0);
  const r = parseSurface((() => { const d = ledger(); d.x_vendor = 1; return d; })());
  assert.equal("x_vendor" in r.surface!, false, "unknown fields are dropped");
});

test("wrap with empty verbs and pass_through is a not_conforming bootstrap", () => {
  const d = ledger();
  d.verbs = {};
  d.pass_through = { allowedSubcommands: ["list"], maxArgv: 8 };
  const r = parseSurface(d);
  assert.deepEqual(codes(r.issues), [["not_conforming", "verbs"]]);
  assert.equal(r.issues[0]!.severity, "warning");
  assert.deepEqual(r.meta?.pass_through, { allowedSubcommands: ["list"], maxArgv: 8 });
});

test("adapter_kind is an alias of kind; kind defaults to composite; sense_only may have no verbs", () => {
  const d = ledger();
  delete d.kind;
  d.adapter_kind = "wrap";
  assert.equal(parseSurface(d).surface?.kind, "wrap");
  const c = parseSurface({ id: "c", verbs: { run: { description: "Run.", cli: ["tool", "run"] } } });
  assert.deepEqual(c.issues, []);
  assert.equal(c.surface?.kind, "composite");
  assert.equal(c.surface?.plane, "runtime");
  assert.deepEqual(c.meta, { hcp: 1, pack_id: "c", adapter_kind: "composite", plane: "runtime" });
  const s = parseSurface({ id: "s", kind: "sense_only", verbs: {}, stimulusTriggers: [{ ref: "t1" }] });
  assert.deepEqual(s.issues, []);
  assert.deepEqual(s.surface?.stimulusTriggers, [{ ref: "t1" }]);
});

test("several problems are all reported, in document order, none stopping the others", () => {
  const issues = validateSurface({
    kind: "wrap",
    plane: "control",
    binding: { mode: "local", extra: 1 },
    transports: ["cli", "ftp"],
    verbs: {},
    harness: "x",
    later: true,
  });
  assert.deepEqual(codes(issues), [
    ["unknown_field", "later"],
    ["invalid_meta", "id"],
    ["deprecated", "harness"],
    ["invalid_meta", "transports[1]"],
    ["binding", "binding.extra"],
    ["binding", "binding.mode"],
    ["binding", "wrap.bin"],
    ["wrap", "verbs"],
  ]);
  const messages = issues.map((i) => i.message);
  assert.ok(messages.includes("control plane packs default Binding mothership"));
  assert.ok(messages.includes("wrap adapter requires wrap.bin"));
  assert.ok(messages.includes("wrap requires named commands or pass_through"));
  assert.ok(messages.includes("id is required"));
});

test("every issue prints as <file>: <path>: <code>: <message>", () => {
  const [i] = withDoc((d) => delete (d.wrap as Record<string, unknown>).bin);
  assert.equal(formatIssue(i!), "surface.json: wrap.bin: binding: wrap adapter requires wrap.bin");
  assert.equal(formatIssue(validateSurface(null)[0]!).startsWith("surface.json: invalid_meta: "), true);
});

test("a carried meta equal to the derived one is accepted", () => {
  const d = ledger();
  d.meta = deriveMeta(parseSurface(ledger()).surface!);
  assert.deepEqual(validateSurface(d), []);
  delete (d.meta as Record<string, unknown>).plane; // absent plane means runtime
  assert.deepEqual(validateSurface(d), []);
});

test("a carried meta is strict and compared field by field", () => {
  const d = ledger();
  d.meta = { ...deriveMeta(parseSurface(ledger()).surface!), extra: 1, transports: ["cli"] };
  assert.deepEqual(codes(validateSurface(d)), [["invalid_meta", "meta.extra"]]);
  d.meta = { ...deriveMeta(parseSurface(ledger()).surface!), transports: ["cli"], pack_id: "other" };
  assert.deepEqual(codes(validateSurface(d)), [["invalid_meta", "meta.pack_id"], ["invalid_meta", "meta.transports"]]);
  d.meta = { hcp: 2, pack_id: "ledger", adapter_kind: "wrap", binding: { mode: "local", x: 1 } };
  assert.deepEqual(codes(validateSurface(d)), [["invalid_meta", "meta.hcp"], ["binding", "meta.binding.x"]]);
  assert.equal(parseSurface(d).surface, null);
});
