// Property tests: mutated surface.json / policy.json / HARNESS.md never make validation throw; every issue is well-formed.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse as parseYaml } from "yaml";
import { parseHarness, parsePolicy, parseSurface, validatePolicy, type Issue } from "../../src/pack/index.js";
import { simpleFrontmatter } from "../../src/pack/harness.js";
import { ledger } from "./helpers.js";

const CODES = new Set(["invalid_meta", "missing_verb", "binding", "wrap", "unknown_field", "deprecated", "not_conforming", "policy", "io"]);

function wellFormed(issues: Issue[]): void {
  for (const i of issues) {
    assert.ok(CODES.has(i.code), i.code);
    assert.equal(typeof i.path, "string");
    assert.equal(typeof i.message, "string");
    assert.ok(i.message.length > 0);
    assert.ok(i.severity === "error" || i.severity === "warning");
    assert.ok(["surface.json", "policy.json", "HARNESS.md"].includes(i.file));
  }
}

type Json = unknown;
const leaf = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, 65, "", "wrap", "control", "mothership", "{{x}}", "--a={{b}}", "{{verb}}", "__proto__", "a".repeat(130)),
  fc.string(),
  fc.integer(),
);
const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("v"), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("id", "kind", "bin", "cli", "args", "type", "mode", "__proto__")), tie("v"), { maxKeys: 4 })),
})).v;

/** A random edit at a random path of a document: set, delete, or replace with an arbitrary value. */
function mutate(doc: Json, path: number[], value: Json, del: boolean): Json {
  if (path.length === 0 || typeof doc !== "object" || doc === null) return value;
  const keys = Object.keys(doc);
  if (keys.length === 0) return doc;
  const key = keys[path[0]! % keys.length]!;
  const copy: Record<string, Json> = Array.isArray(doc) ? ([...doc] as unknown as Record<string, Json>) : { ...(doc as Record<string, Json>) };
  if (del && path.length === 1 && !Array.isArray(doc)) delete copy[key];
  else copy[key] = mutate(copy[key], path.slice(1), value, del);
  return copy;
}

const policyBase = { surface_id: "ledger", default: "deny", verbs: { list: "read", transfer: { policy: "write", confirm: true, timeout_ms: 10000 } }, pass_through: "deny", limits: { timeout_ms: 60000 }, env: ["A"] };

test("mutated surface.json documents never throw and yield well-formed issues", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.array(fc.nat(), { maxLength: 5 }), json, fc.boolean()), { minLength: 1, maxLength: 4 }), (edits) => {
      let doc: Json = ledger();
      for (const [path, value, del] of edits) doc = mutate(doc, path, value, del);
      const r = parseSurface(doc);
      wellFormed(r.issues);
      assert.equal(r.surface === null, r.issues.some((i) => i.severity === "error"));
      wellFormed(validatePolicy(policyBase, r.surface));
    }),
    { numRuns: 1500 },
  );
});

test("arbitrary JSON values as surface.json never throw", () => {
  fc.assert(fc.property(json, (doc) => wellFormed(parseSurface(doc).issues)), { numRuns: 500 });
});

test("mutated policy.json documents never throw and yield well-formed issues", () => {
  const surface = parseSurface(ledger()).surface;
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.array(fc.nat(), { maxLength: 4 }), json, fc.boolean()), { minLength: 1, maxLength: 4 }), (edits) => {
      let doc: Json = policyBase;
      for (const [path, value, del] of edits) doc = mutate(doc, path, value, del);
      const r = parsePolicy(doc, surface);
      wellFormed(r.issues);
      wellFormed(parsePolicy(doc, null).issues);
    }),
    { numRuns: 1000 },
  );
});

test("arbitrary HARNESS.md text never throws", () => {
  const text = fc.oneof(fc.string(), fc.string().map((s) => `---\n${s}\n---\nbody`), fc.constantFrom("---\n*a\n---\n", "---\n&a [*a]\n---\n", "---\n!!binary x\n---\n"));
  fc.assert(fc.property(text, (t) => wellFormed(parseHarness(t).issues)), { numRuns: 1000 });
});

test("the frontmatter fast path reads exactly what the yaml library reads", () => {
  const value = fc.oneof(
    fc.string(),
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.;!?=+()'/_:#"-]{0,20}$/),
    fc.constantFrom("true", "No", "null", "a b", "x.", "\"q\"", "\"a\\nb\"", "a; b", "Is it? Yes!", "a =b", "c++ tool", "a ?b", "a !b", "it''s", "'", "a'' b'", " x ", "#", "a: b", 'say \\"hi\\"', "a\\\\b", "\\", 'a\\"', "x\\ty", "\\\\\\\"", "it's \\\"x\\\": y"),
  );
  // Written plain, in double quotes, or in single quotes (its own quotes doubled, or left as they are).
  const styles = ["plain", "double", "single", "single-doubled"] as const;
  const written = (v: string, style: (typeof styles)[number]) =>
    style === "plain" ? v : style === "double" ? `"${v}"` : `'${style === "single" ? v : v.replaceAll("'", "''")}'`;
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom("name", "description", "other"), value, fc.constantFrom(...styles)), { maxLength: 3 }), (lines) => {
      const src = lines.map(([k, v, style]) => `${k}: ${written(v, style)}`).join("\n");
      const fast = simpleFrontmatter(src);
      if (fast !== null) assert.deepEqual(fast, parseYaml(src), src);
    }),
    { numRuns: 3000 },
  );
});
