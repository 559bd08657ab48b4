import { test } from "node:test";
import assert from "node:assert/strict";
import { AgentMetaError, CONFIRMATION_NOTE, fromManifest } from "../../src/agentmeta/index.js";
import { JsonNumber, stableJSON } from "../../src/json/stable.js";
import { parseManifest } from "../../src/manifest/decode.js";
import { ManifestError, UnsupportedVersionError } from "../../src/manifest/errors.js";
import type { Manifest } from "../../src/manifest/types.js";
import { boolFlag, demoManifest, loadExample, manifestOf } from "./fixtures.js";

interface Case {
  name: string;
  manifest: unknown;
  expect?: unknown;
  expect_stable?: string;
  expect_error?: string;
  expect_error_type?: string;
}

const ERROR_TYPES: Record<string, new (...args: never[]) => Error> = { UnsupportedVersionError };

for (const c of loadExample<{ cases: Case[] }>("agentmeta_from_manifest.json").cases) {
  test(`agentmeta_from_manifest.json: ${c.name}`, () => {
    const m = manifestOf(c.manifest);
    if (c.expect_error !== undefined) {
      assert.throws(
        () => fromManifest(m),
        (err: unknown) => {
          assert.ok(err instanceof ManifestError, "a typed manifest error");
          assert.equal(err.message, c.expect_error);
          if (c.expect_error_type) assert.ok(err instanceof ERROR_TYPES[c.expect_error_type]!, c.expect_error_type);
          return true;
        },
      );
      return;
    }
    const doc = fromManifest(m);
    assert.deepEqual(JSON.parse(stableJSON(doc)), c.expect);
    assert.equal(stableJSON(doc), c.expect_stable);
  });
}

/** The document equals the expected JSON value, field order and sorted extension keys included. */
function assertDocument(m: Manifest, expected: unknown): void {
  const doc = fromManifest(m);
  assert.deepEqual(JSON.parse(stableJSON(doc)), expected);
  assert.equal(stableJSON(doc), stableJSON(expected));
}

test("rgref_reference.json: the rgref manifest projects to Go's document", () => {
  const ex = loadExample<{ manifest: unknown; expect_agentmeta: unknown }>("rgref_reference.json");
  assertDocument(manifestOf(ex.manifest), ex.expect_agentmeta);
});

test("rungrad_cli.json: the rungrad CLI manifest projects to expect_agentmeta", () => {
  const ex = loadExample<{ manifest: unknown; expect_agentmeta: unknown }>("rungrad_cli.json");
  assertDocument(manifestOf(ex.manifest), ex.expect_agentmeta);
});

for (const c of loadExample<{ cases: { name: string; manifest: unknown; expect_agentmeta: unknown }[] }>("scaffold_product_manifest.json").cases) {
  test(`scaffold_product_manifest.json: ${c.name}`, () => assertDocument(manifestOf(c.manifest), c.expect_agentmeta));
}

const errorOf = (m: Manifest): Error => {
  try {
    fromManifest(m);
  } catch (err) {
    return err as Error;
  }
  assert.fail("expected an error");
};

test("projection errors are AgentMetaError (a ManifestError) with Go's exact texts", () => {
  const spec = demoManifest([]);
  spec.spec_version = "rungrad-spec/2\n";
  let err = errorOf(spec);
  assert.ok(err instanceof AgentMetaError && err instanceof ManifestError);
  assert.equal(err.message, 'unsupported manifest spec version "rungrad-spec/2\\n"');

  const empty = demoManifest([]);
  empty.spec_version = "";
  assert.equal(errorOf(empty).message, 'unsupported manifest spec version ""');

  err = errorOf(demoManifest([{ path: ["item", "list"], use: " \t\u00a0 " }]));
  assert.ok(err instanceof AgentMetaError);
  assert.equal(err.message, "manifest command item list has empty use");

  err = errorOf(demoManifest([{ path: ["item"], use: "items <id>" }]));
  assert.equal(err.message, 'manifest command item use first field "items" does not match "item"');

  const root = demoManifest([]);
  root.commands![0]!.use = "Demo\u0007 run";
  assert.equal(errorOf(root).message, 'manifest command [] use first field "Demo\\a" does not match "demo"');
});

test("validation runs first and its errors are returned unchanged", () => {
  const m = demoManifest([{ path: ["a"], use: "a" }, { path: ["a"], use: "a" }]);
  m.spec_version = "wrong";
  const err = errorOf(m);
  assert.equal(err.constructor, ManifestError);
  assert.equal(err.message, "manifest has duplicate command path a");
});

test("root must be first, although validation accepts it anywhere", () => {
  const m = demoManifest([{ path: ["x"], use: "x" }]);
  m.commands!.reverse();
  assert.equal(errorOf(m).message, "manifest command at index 0 is not root: x");
});

test("templates: use is split on Unicode whitespace runs, operands appended, required flags never", () => {
  const required = { name: "id", shorthand: "i", usage: "Id", default: "", type: "string", required: true };
  const optional = { ...required, name: "all", required: false };
  const doc = fromManifest(
    demoManifest([
      { path: ["item"], use: "item" },
      {
        path: ["item", "get"],
        use: "  get\t<name>\u00a0\u2003[flags]\n",
        output_modes: ["human", "json"],
        local_flags: [optional, required],
      },
    ]),
  );
  const get = doc.commands[2]!;
  assert.equal(get.command_template, "demo item get");
  assert.equal(get.usage_template, "demo item get <name> [flags]");
  assert.equal(get.machine_usage_template, "demo item get <name> [flags] --json --no-prompt");
  assert.deepEqual(get.required_local_flags, [required]);
  assert.deepEqual(get.local_flags, [optional, required]);
  assert.equal(get.use, "  get\t<name>\u00a0\u2003[flags]\n", "use is copied verbatim");
});

test("machine, dry-run and confirmation: the Go conditions", () => {
  const doc = fromManifest(
    demoManifest([
      { path: ["read"], use: "read", output_modes: ["json"] },
      { path: ["human"], use: "human", output_modes: ["human"] },
      { path: ["write"], use: "write <x>", output_modes: ["json"], mutates: true, supports_dry_run: true },
      { path: ["plain-write"], use: "plain-write", mutates: true, supports_dry_run: true },
      { path: ["nodry"], use: "nodry", output_modes: ["json"], mutates: true },
      { path: ["drop"], use: "drop <x>", output_modes: ["json"], mutates: true, supports_dry_run: true, destructive: true, requires_confirmation: true },
      { path: ["odd"], use: "odd", output_modes: ["json"], destructive: true },
    ]),
  );
  const by = (name: string) => doc.commands.find((c) => c.path[0] === name)!;
  assert.equal(by("read").machine_usage_template, "demo read --json --no-prompt");
  assert.equal(by("human").machine_usage_template, "");
  assert.equal(by("write").machine_usage_template, "");
  assert.equal(by("write").dry_run_usage_template, "demo write <x> --dry-run --json --no-prompt");
  assert.equal(by("plain-write").dry_run_usage_template, "demo plain-write --dry-run");
  assert.equal(by("nodry").dry_run_usage_template, "");
  assert.equal(by("drop").dry_run_usage_template, "demo drop <x> --dry-run --json --no-prompt");
  assert.equal(by("drop").confirmation_note, CONFIRMATION_NOTE);
  assert.equal(by("odd").machine_usage_template, "", "destructive commands get no machine template");
  assert.equal(by("odd").confirmation_note, "");
});

test("canonical globals: renamed, hidden, retyped or defaulted-true flags are absent", () => {
  const m = demoManifest([{ path: ["w"], use: "w", output_modes: ["json"], mutates: true, supports_dry_run: true }, { path: ["r"], use: "r", output_modes: ["json"] }]);
  m.global_flags = [
    boolFlag("json"),
    { ...boolFlag("no-prompt"), type: "string" },
    boolFlag("dry-run"),
  ];
  const doc = fromManifest(m);
  assert.equal(doc.commands[1]!.dry_run_usage_template, "demo w --dry-run");
  assert.equal(doc.commands[2]!.machine_usage_template, "");
  m.global_flags = [boolFlag("dryrun")];
  assert.equal(fromManifest(m).commands[1]!.dry_run_usage_template, "");
});

test("has_children: strict path prefixes in any order, no synthesised parents", () => {
  const doc = fromManifest(
    demoManifest([
      { path: ["b", "c", "d"], use: "d" },
      { path: ["a"], use: "a" },
      { path: ["b"], use: "b" },
      { path: ["ab"], use: "ab" },
      { path: ["a\u0000b"], use: "a\u0000b" },
      { path: ["x", "a"], use: "a" },
    ]),
  );
  const flags = Object.fromEntries(doc.commands.map((c) => [c.path.join("/"), c.has_children]));
  assert.deepEqual(flags, { "": true, "b/c/d": false, a: false, b: true, ab: false, "a\u0000b": false, "x/a": false });
  assert.equal(doc.commands.filter((c) => c.is_root).length, 1);

  const alone = fromManifest(demoManifest([]));
  assert.equal(alone.commands[0]!.has_children, false, "a root alone has no children");
});

test("extensions: deep-copied with literals kept, omitted when absent or empty, empty namespaces kept", () => {
  const text = JSON.stringify({
    schema_version: "rungrad-manifest/1",
    spec_version: "rungrad-spec/1",
    tool_name: "demo",
    tool_version: "",
    global_flags: [],
    commands: [
      { path: [], use: "demo", short: "", examples: [], related: [], output_modes: [], local_flags: [], extensions: {} },
      { path: ["a"], use: "a", short: "", examples: [], related: [], output_modes: [], local_flags: [], extensions: { "z.io/x": {}, "a.io/x": { list: [{ k: "v" }], n: 0 } } },
    ],
  }).replace('"n":0', '"n":1.50');
  const exact = parseManifest(text);
  const doc = fromManifest(exact);
  assert.equal("extensions" in doc.commands[0]!, false);
  const out = stableJSON(doc.commands[1]!.extensions);
  assert.equal(out, '{\n  "a.io/x": {\n    "list": [\n      {\n        "k": "v"\n      }\n    ],\n    "n": 1.50\n  },\n  "z.io/x": {}\n}\n');
  const copied = doc.commands[1]!.extensions!["a.io/x"]!;
  const source = exact.commands![1]!.extensions!["a.io/x"]!;
  assert.notEqual(copied, source);
  assert.notEqual(copied["list"], source["list"]);
  assert.ok(copied["n"] instanceof JsonNumber);
  (copied as Record<string, unknown>)["added"] = true;
  assert.equal("added" in source, false);
});

test("the document shares no arrays or objects with the manifest", () => {
  const m = demoManifest([{ path: ["a"], use: "a", examples: ["demo a"], related: ["demo"], output_modes: ["json"], local_flags: [{ name: "f", shorthand: "", usage: "", default: "", type: "string", required: true }] }]);
  const before = stableJSON(m);
  const doc = fromManifest(m);
  const c = doc.commands[1]!;
  c.path.push("x");
  c.examples.push("x");
  c.related.push("x");
  c.output_modes.push("x");
  c.local_flags[0]!.name = "x";
  c.required_local_flags[0]!.name = "y";
  doc.global_flags[0]!.name = "x";
  assert.equal(stableJSON(m), before);
});

test("10,000 commands project in linear time with correct has_children", () => {
  const commands: Record<string, unknown>[] = [];
  for (let i = 0; i < 2500; i++) {
    commands.push({ path: [`g${i}`], use: `g${i}` });
    for (const leaf of ["list", "get", "create"]) commands.push({ path: [`g${i}`, leaf], use: `${leaf} <id>`, output_modes: ["json"] });
  }
  const m = demoManifest(commands);
  // CPU time, not the clock: a loaded machine that leaves this process waiting adds none of it.
  const start = process.cpuUsage();
  const doc = fromManifest(m);
  const used = process.cpuUsage(start);
  const cpuMs = (used.user + used.system) / 1000;
  assert.equal(doc.commands.length, 10_001);
  assert.equal(doc.commands.filter((c) => c.has_children).length, 2501);
  assert.ok(cpuMs < 2000, `took ${cpuMs} ms of CPU`);
});
