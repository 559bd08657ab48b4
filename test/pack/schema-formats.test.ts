// Formats are added to the shared Ajv only when needed; the first schema this process compiles names one.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compileSchema } from "../../src/pack/schema.js";

test("the first plain schema compiled with a format still checks the format", () => {
  const compiled = compileSchema({ type: "object", properties: { mail: { type: "string", format: "email" } } });
  assert.ok(compiled.ok);
  assert.equal(compiled.validate({ mail: "someone@example.com" }), true);
  assert.equal(compiled.validate({ mail: "not an address" }), false);
});
