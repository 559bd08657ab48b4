// The args-schema fast path: whatever it accepts, Ajv's meta-schema check (with ajv-formats) and compile accept too.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { acceptsEmptyObject, checkSchema, compileSchema, getAjv, isPlainSchema } from "../../src/pack/schema.js";
import { anySchema, readFixtureJson } from "./helpers.js";

/** checkSchema without the fast path: the meta-schema, then a compile. */
function slowCheck(schema: object): string | null {
  const ajv = getAjv();
  if (!(ajv.validateSchema(schema) as boolean)) return ajv.errorsText(ajv.errors, { dataVar: "args" });
  const compiled = compileSchema(schema);
  return compiled.ok ? null : compiled.error;
}

test("the probe pack's and generated packs' args schemas take the fast path", () => {
  const probe = readFixtureJson("packs/hcp-probe/surface.json") as { verbs: Record<string, { args?: unknown }> };
  const schemas = Object.values(probe.verbs).flatMap((v) => (v.args === undefined ? [] : [v.args]));
  assert.ok(schemas.length >= 2);
  schemas.push({ type: "object", properties: { name: { type: "string" }, limit: { type: "integer" } }, required: ["name"], additionalProperties: false });
  for (const s of schemas) assert.equal(isPlainSchema(s), true, JSON.stringify(s));
});

test("the fast path defers what it cannot vouch for", () => {
  const deferred = [
    { type: "object", properties: { a: { type: "string", pattern: "a\\Z" } } }, // ajv-formats rejects \Z
    { type: "object", properties: { a: { type: "string", pattern: "\\-" } } }, // valid, but not with the u flag Ajv compiles with
    { type: "object", properties: { a: { type: "string", pattern: "(" } } },
    { type: "object", properties: { a: { $ref: "#/$defs/x" } } },
    { type: "object", minLength: -1 },
    { type: "object", multipleOf: 0 },
    { type: ["string", "string"] },
    { type: [] },
    { type: "object", anyOf: [] },
    { type: "object", enum: [] }, // the meta-schema allows it; Ajv's compile does not
  ];
  for (const s of deferred) {
    assert.equal(isPlainSchema(s), false, JSON.stringify(s));
    assert.equal(checkSchema(s), slowCheck(s), JSON.stringify(s));
  }
});

test("whatever the fast path accepts, Ajv accepts and compiles", () => {
  let fast = 0;
  fc.assert(
    fc.property(anySchema, (s) => {
      if (!isPlainSchema(s)) return;
      fast++;
      assert.equal(getAjv().validateSchema(s as object), true, JSON.stringify(s));
      assert.equal(compileSchema(s).ok, true, JSON.stringify(s));
      if (typeof s === "object") assert.equal(slowCheck(s as object), null, JSON.stringify(s));
    }),
    { numRuns: 3000 },
  );
  assert.ok(fast > 100, `only ${fast} generated schemas took the fast path`);
});

test("a schema said to accept a call without arguments does accept {} (Ajv agrees)", () => {
  let accepted = 0;
  fc.assert(
    fc.property(anySchema, (s) => {
      if (!acceptsEmptyObject(s)) return;
      accepted++;
      const compiled = compileSchema(s);
      assert.ok(compiled.ok && compiled.validate({}), JSON.stringify(s));
    }),
    { numRuns: 3000 },
  );
  assert.ok(accepted > 50, `only ${accepted} generated schemas accept {}`);
  for (const s of [
    { type: "object", required: ["a"] },
    { type: "object", minProperties: 1 },
    { type: "object", enum: [{ a: 1 }] },
    { type: "object", const: { a: 1 } },
    { type: "string" },
    { type: "object", anyOf: [{ required: ["a"] }] },
    false,
  ]) {
    assert.equal(acceptsEmptyObject(s), false, JSON.stringify(s));
  }
  assert.equal(acceptsEmptyObject({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false }), true);
});

test("a schema that is not plain is still checked against the meta-schema when compiled", () => {
  const compiled = compileSchema({ type: "object", minLength: -1 });
  assert.equal(compiled.ok, false);
  assert.match(compiled.ok ? "" : compiled.error, /^schema is invalid: data\/minLength must be >= 0/);
});
