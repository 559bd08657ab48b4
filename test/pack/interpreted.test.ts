// The interpreting validator a one-shot run asks first (src/pack/interpreted.ts) against Ajv as hcp compiles the
// same schema (compileSchema): it may say yes only where Ajv says yes. Values are made as JSON text and parsed, as
// `--args` and MCP arguments are, so duplicate keys and own `__proto__` keys are what JSON.parse makes of them.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { acceptsWithoutCompiling, isJsonData } from "../../src/pack/interpreted.js";
import { compileSchema, isPlainSchema } from "../../src/pack/schema.js";
import { cliArgs } from "../../src/transports/cli.js";
import { anySchema } from "./helpers.js";

/** Ajv's answer as a one-shot run gets it; a throw (fast-deep-equal calling an own `valueOf`) is no yes. */
function ajvAccepts(schema: unknown, data: unknown): boolean {
  const compiled = compileSchema(schema);
  assert.ok(compiled.ok, JSON.stringify(schema));
  try {
    return compiled.validate(data) === true;
  } catch {
    return false;
  }
}

const NAMES = ["a", "b", "__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "$ref", ""];
const STRINGS = ["", "a", "ab", "A", "é", "e\u0301", "😀", "😀😀", "a😀", "\ud83d", "\ude00x", "\u{10FFFF}", "0", "1", "-1", "NaN", "Infinity", "--rf"];
/** Numbers as JSON text: integers written as decimals, -0, the edges of doubles, past them (1e309 parses to Infinity). */
const NUMBERS = ["0", "-0", "1", "1.0", "1.5", "-1", "0.1", "0.3", "0.30000000000000004", "1e21", "1e308", "-1e308", "1e309", "5e-324", "9007199254740993", "1e-7", "2"];

/** JSON text of a value: objects as key lists (duplicate keys and `__proto__` included), parsed by the test. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom("null", "true", "false"),
    fc.constantFrom(...NUMBERS),
    fc.constantFrom(...STRINGS).map((s) => JSON.stringify(s)),
    fc.array(tie("v"), { maxLength: 3 }).map((a) => `[${a.join(",")}]`),
    fc.array(fc.tuple(fc.constantFrom(...NAMES), tie("v")), { maxLength: 3 }).map((e) => `{${e.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
  ),
})).v;

const PATTERNS = ["^\\p{L}+$", "^\\p{Lu}", "^.$", "^.{2}$", "^[😀-😂]+$", "\\u{1F600}", "^\\S+$", "^[a-z]*$", "^-", "^\\d+$", "(?:)"];

/** Plain schemas of one to three keywords each (more would refuse nearly every value), with the values an attacker would aim at. */
const plainSchema: fc.Arbitrary<unknown> = fc.letrec<{ s: unknown }>((tie) => ({
  s: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.boolean(),
    fc
      .array(
        fc.oneof(
          fc.tuple(fc.constant("type"), fc.constantFrom<unknown>("string", "number", "integer", "boolean", "object", "array", "null", ["integer", "string"], ["number", "null"], ["object", "array"])),
          fc.tuple(fc.constant("properties"), fc.dictionary(fc.constantFrom(...NAMES), tie("s"), { maxKeys: 3 })),
          fc.tuple(fc.constant("required"), fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 2 })),
          fc.tuple(fc.constantFrom("additionalProperties", "items"), tie("s")),
          fc.tuple(fc.constantFrom("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"), fc.integer({ min: 0, max: 3 })),
          fc.tuple(fc.constantFrom("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"), fc.constantFrom(0, -0, 1, 1.5, 0.1, -1e308, 1e308, 1e21, 9007199254740992)),
          fc.tuple(fc.constant("multipleOf"), fc.constantFrom(0.1, 0.01, 1, 2, 1e-7, 0.5, 3)),
          fc.tuple(fc.constant("pattern"), fc.constantFrom(...PATTERNS)),
          fc.tuple(fc.constant("enum"), fc.array(jsonText, { minLength: 1, maxLength: 3 }).map((a) => a.map((t) => JSON.parse(t) as unknown))),
          fc.tuple(fc.constantFrom("const", "default"), jsonText.map((t) => JSON.parse(t) as unknown)),
          fc.tuple(fc.constant("uniqueItems"), fc.boolean()),
          fc.tuple(fc.constant("description"), fc.constant("Described.")),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((entries) => Object.fromEntries(entries)),
  ),
})).s;

/** As a pack's schema is: parsed JSON. */
const asParsed = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

test("the interpreter accepts only what Ajv accepts: generated plain schemas and values, and judges most of them itself", () => {
  let judged = 0;
  let accepted = 0;
  fc.assert(
    fc.property(fc.oneof(plainSchema, anySchema), fc.array(jsonText, { minLength: 1, maxLength: 4 }), (generated, texts) => {
      const schema = asParsed(generated);
      if (!isPlainSchema(schema)) return;
      for (const text of texts) {
        const data: unknown = JSON.parse(text);
        const yes = acceptsWithoutCompiling(schema, data);
        const ajv = ajvAccepts(schema, data);
        if (yes) assert.ok(ajv, `the interpreter accepted what Ajv refuses: ${JSON.stringify(schema)} ${text}`);
        if (yes) accepted++;
        judged++;
      }
    }),
    { numRuns: 4000 },
  );
  // The comparison means something only if the interpreter says yes often.
  assert.ok(judged > 5000 && accepted > 1000, `${accepted} of ${judged} values accepted without Ajv`);
});

/** [what an attacker tries, schema, JSON text of the value]: Ajv refuses each; so must the interpreter (or leave it to Ajv). */
const REFUSED: [string, unknown, string][] = [
  ["a pattern with \\p{…}", { type: "string", pattern: "^\\p{Lu}+$" }, '"abc"'],
  ["an astral character against a one-character pattern", { type: "string", pattern: "^.$" }, '"😀😀"'],
  ["a lone surrogate against a letters pattern", { type: "string", pattern: "^\\p{L}+$" }, '"\\ud83d"'],
  ["maxLength counted in code points (emoji)", { type: "string", maxLength: 1 }, '"😀😀"'],
  ["maxLength with a combining mark", { type: "string", maxLength: 1 }, '"e\\u0301"'],
  ["minLength counted in code points", { type: "string", minLength: 2 }, '"😀"'],
  ["integer against 1.5", { type: "integer" }, "1.5"],
  ["integer against a string of digits", { type: "integer" }, '"1"'],
  ["a huge number past maximum", { type: "number", maximum: 10 }, "1e308"],
  ["past the largest double (Infinity) past maximum", { type: "number", maximum: 1e308 }, "1e309"],
  ["exclusiveMinimum at -0", { type: "number", exclusiveMinimum: 0 }, "-0"],
  ["multipleOf with decimals (Ajv divides in floating point)", { type: "number", multipleOf: 0.1 }, "0.3"],
  ["multipleOf past 2^53 (parseInt of 1e21 is 1)", { type: "number", multipleOf: 1 }, "1e21"],
  ["const of an object, other value", { const: { a: 1, b: [1, 2] } }, '{"b":[1,2],"a":2}'],
  ["const of an object with an own constructor", { const: { constructor: {} } }, '{"constructor":{}}'],
  ["enum of objects with an own valueOf (Ajv throws)", { enum: [{ valueOf: 1 }] }, '{"valueOf":1}'],
  ["enum of objects with an own constructor", { enum: [{ constructor: {} }] }, '{"constructor":{}}'],
  ["enum of arrays, other order", { enum: [[1, 2]] }, "[2,1]"],
  ["uniqueItems with equal objects, keys in other orders", { type: "array", uniqueItems: true }, '[{"a":1,"b":2},{"b":2,"a":1}]'],
  ["uniqueItems with 1 and 1.0", { type: "array", uniqueItems: true }, "[1,1.0]"],
  ["uniqueItems with objects with an own valueOf (Ajv throws)", { type: "array", uniqueItems: true }, '[{"valueOf":1,"a":1},{"valueOf":1,"a":2}]'],
  ["additionalProperties: false against an own __proto__ key", { type: "object", additionalProperties: false }, '{"__proto__":"x"}'],
  ["additionalProperties: false against an own constructor key", { type: "object", properties: { a: {} }, additionalProperties: false }, '{"constructor":"x"}'],
  ["a __proto__ property Ajv leaves out of properties", { type: "object", properties: { ["__proto__"]: { type: "string" } }, additionalProperties: false }, '{"__proto__":"x"}'],
  ["properties naming an inherited name, given nothing", { type: "object", properties: { constructor: { type: "string" } } }, "{}"],
  ["a duplicate key whose last value is wrong", { type: "object", properties: { a: { type: "string" } } }, '{"a":"x","a":1}'],
  ["NaN as a string for a number", { type: "number" }, '"NaN"'],
];

test("values an attacker would try, each refused by Ajv, are never accepted without Ajv", () => {
  for (const [what, generated, text] of REFUSED) {
    const schema = asParsed(generated);
    assert.ok(isPlainSchema(schema), what);
    const data: unknown = JSON.parse(text);
    assert.equal(ajvAccepts(schema, data), false, `Ajv accepts ${what}`);
    assert.equal(acceptsWithoutCompiling(schema, data), false, what);
  }
});

test("arguments JSON.parse does not make (an object with another prototype, Infinity) are left to Ajv", () => {
  // An object whose prototype holds `message`: Ajv reads it through the prototype, the interpreter would not.
  const schema = { type: "object", properties: { message: { type: "string" } }, additionalProperties: false };
  const polluted = Object.setPrototypeOf({}, { message: ["-rf"] }) as Record<string, unknown>;
  assert.equal(Object.hasOwn(polluted, "message"), false);
  assert.equal(isJsonData(polluted), false);
  assert.equal(acceptsWithoutCompiling(schema, polluted), false);
  assert.equal(ajvAccepts(schema, polluted), false);
  assert.equal(acceptsWithoutCompiling({ type: "object" }, Object.create(null)), false);
  // `--arg __proto__:=…` is an own key, as JSON.parse makes it: judged like any other name.
  const own = cliArgs(undefined, ['__proto__:={"message":["-rf"]}']);
  assert.equal(acceptsWithoutCompiling(schema, own), ajvAccepts(schema, own));
  assert.equal(acceptsWithoutCompiling({ type: "number" }, Number.POSITIVE_INFINITY), false);
  assert.equal(acceptsWithoutCompiling({ type: "number" }, Number.NaN), false);
  assert.equal(acceptsWithoutCompiling({ type: "array" }, Array(2)), false); // holes
  assert.equal(acceptsWithoutCompiling({ type: "string" }, undefined), false);
});

test("the arguments of common schemas are judged without Ajv: strings within their bounds, integers, nested objects", () => {
  const message = asParsed({ type: "object", properties: { message: { type: "string", maxLength: 100 } }, required: ["message"], additionalProperties: false });
  assert.equal(acceptsWithoutCompiling(message, { message: "hi" }), true);
  assert.equal(acceptsWithoutCompiling(message, { message: "😀".repeat(100) }), true); // 100 code points, 200 UTF-16 units
  assert.equal(acceptsWithoutCompiling(asParsed({ type: "integer", minimum: 1 }), 1e308), true);
  assert.equal(acceptsWithoutCompiling(asParsed({ type: "integer" }), JSON.parse("1.0")), true);
  const nested = asParsed({ type: "object", properties: { tags: { type: "array", items: { enum: ["a", "b", 1] } }, opts: { type: "object", additionalProperties: { type: "boolean" } } } });
  assert.equal(acceptsWithoutCompiling(nested, JSON.parse('{"tags":["a",1],"opts":{"x":true}}')), true);
  // and the schemas it leaves to Ajv, even for a value both accept
  assert.equal(acceptsWithoutCompiling(asParsed({ type: "number", multipleOf: 2 }), 4), false);
  // a pattern: the interpreter would match it with JavaScript's backtracking RegExp, Ajv matches it in linear time
  assert.equal(acceptsWithoutCompiling(asParsed({ type: "string", pattern: "^\\p{L}+$" }), "ñandú"), false);
  assert.equal(acceptsWithoutCompiling(asParsed({ type: "object", properties: { v: { type: "string", pattern: "^([a-z]+)+$" } } }), { v: "abc" }), false);
  assert.equal(acceptsWithoutCompiling(asParsed({ type: "string", format: "date" }), "2026-01-01"), false);
  assert.equal(acceptsWithoutCompiling(asParsed({ type: "object", anyOf: [{}] }), {}), false);
  // `required` naming an inherited name: Ajv's code finds `{}.constructor`, the interpreter does not; its no goes to Ajv
  const inheritedName = asParsed({ type: "object", required: ["constructor"] });
  assert.equal(acceptsWithoutCompiling(inheritedName, {}), false);
  assert.equal(ajvAccepts(inheritedName, {}), true);
});

test("the interpreter leaves the schema it judged as it was (its marks are on a copy)", () => {
  const schema = asParsed({ type: "object", properties: { a: { type: "string" } } }) as Record<string, unknown>;
  const before = Object.getOwnPropertyNames(schema);
  assert.equal(acceptsWithoutCompiling(schema, { a: "x" }), true);
  assert.deepEqual(Object.getOwnPropertyNames(schema), before);
  assert.deepEqual(Object.getOwnPropertyNames(schema["properties"]), ["a"]);
});
