// The instance for plain schemas (Ajv's core with the four vocabularies they use, no meta-schemas, no pass
// over the generated code: src/pack/ajv-plain.ts, schema.ts) against the full one. A file of its own: compileSchema's
// cache is keyed by a schema's JSON text, and other tests compile objects without a prototype, which
// fast-deep-equal compares otherwise (a pack's schema is parsed JSON and never has one).

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compileSchema, getAjv, isPlainSchema } from "../../src/pack/schema.js";
import { anySchema, value } from "./helpers.js";

test("a plain schema judges every value as the full instance (meta-schemas, formats) does: the same answer, the same errors", () => {
  let compared = 0;
  fc.assert(
    fc.property(anySchema, fc.array(fc.oneof(value, fc.dictionary(fc.constantFrom("a", "b", "name"), value, { maxKeys: 3 })), { maxLength: 4 }), (generated, data) => {
      // As a pack's schema is: parsed JSON (compileSchema's cache is keyed by the JSON text).
      const s: unknown = JSON.parse(JSON.stringify(generated));
      if (!isPlainSchema(s) || JSON.stringify(s).includes('"format"')) return;
      const compiled = compileSchema(s);
      assert.ok(compiled.ok, JSON.stringify(s));
      const full = getAjv().compile(s as object);
      for (const d of [{}, ...data]) {
        compared++;
        assert.equal(compiled.validate(d), full(d), JSON.stringify([s, d]));
        assert.deepEqual(compiled.validate.errors, full.errors, JSON.stringify([s, d]));
      }
    }),
    { numRuns: 2000 },
  );
  assert.ok(compared > 500, `only ${compared} values were compared`);
});
