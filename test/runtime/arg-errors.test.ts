// An unknown argument's error says what the caller likely meant: the nearest name, else the names there are.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compileSchema } from "../../src/pack/schema.js";
import { argumentErrors } from "../../src/runtime/arg-errors.js";

/** The messages for `args` against `schema`, as a verb's arguments are judged. */
function errorsOf(schema: Record<string, unknown>, args: unknown): string[] {
  const compiled = compileSchema(schema);
  assert.ok(compiled.ok);
  assert.equal(compiled.validate(args), false);
  return argumentErrors(compiled.validate.errors ?? [], schema);
}

const closed = (properties: Record<string, unknown>) => ({ type: "object", properties, additionalProperties: false });
const flags = closed({ show_labels: { type: "boolean" }, selector: { type: "string" }, watch_only: { type: "boolean" }, watch: { type: "boolean" } });

test("an unknown argument names the nearest one: another case, - for _, a few letters off, or one containing it", () => {
  assert.deepEqual(errorsOf(flags, { "show-labels": true }), ['unknown argument "show-labels" (did you mean "show_labels"?)']);
  assert.deepEqual(errorsOf(flags, { Selector: "a" }), ['unknown argument "Selector" (did you mean "selector"?)']);
  assert.deepEqual(errorsOf(flags, { watchonly: true }), ['unknown argument "watchonly" (did you mean "watch_only"?)']);
  assert.deepEqual(errorsOf(flags, { selectr: "a" }), ['unknown argument "selectr" (did you mean "selector"?)']);
  assert.deepEqual(errorsOf(flags, { labels: true }), ['unknown argument "labels" (did you mean "show_labels"?)']);
  // Among names as near, the schema's first.
  assert.deepEqual(errorsOf(closed({ port_a: {}, port_b: {} }), { port_c: 1 }), ['unknown argument "port_c" (did you mean "port_a"?)']);
});

test("an unknown argument near none lists the names there are (the first twelve); a verb without any says so", () => {
  assert.deepEqual(errorsOf(flags, { zzz: 1 }), ['unknown argument "zzz" (its arguments: show_labels, selector, watch_only, watch)']);
  const many = closed(Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`name${String(i).padStart(2, "0")}`, {}])));
  assert.deepEqual(errorsOf(many, { other: 1 }), ['unknown argument "other" (its arguments: name00, name01, name02, name03, name04, name05, name06, name07, name08, name09, name10, name11 and 3 more)']);
  assert.deepEqual(errorsOf(closed({}), { x: 1 }), ['unknown argument "x" (the verb takes no arguments)']);
  // A name of thousands of letters is not compared letter by letter (an agent may send megabytes).
  assert.deepEqual(errorsOf(flags, { ["s".repeat(100_000)]: 1 }), [`unknown argument "${"s".repeat(100_000)}" (its arguments: show_labels, selector, watch_only, watch)`]);
});

test("an unknown field of an object argument names the object's fields", () => {
  const schema = closed({ opts: closed({ depth: { type: "integer" }, mode: { type: "string" } }) });
  assert.deepEqual(errorsOf(schema, { opts: { dept: 1 } }), ['unknown argument "opts.dept" (did you mean "opts.depth"?)']);
  assert.deepEqual(errorsOf(schema, { opts: { zzz: 1 } }), ['unknown argument "opts.zzz" (the fields of "opts": depth, mode)']);
});

test("only the first eight unknown arguments of a call are told what was likely meant (an agent may send thousands)", () => {
  const sent = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`selector${String(i).padStart(2, "0")}`, 1]));
  const messages = errorsOf(closed({ selector: {} }), sent);
  assert.equal(messages.length, 20);
  assert.equal(messages.filter((m) => m.includes("(")).length, 8);
  assert.equal(messages[8], 'unknown argument "selector08"');
});
