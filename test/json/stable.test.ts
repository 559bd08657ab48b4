import { test } from "node:test";
import assert from "node:assert/strict";
import { stableJSON, compactJSON, JsonNumber, dictionary, formatFloat, writeStableJSON } from "../../src/json/stable.js";
import { goQuote, goFields } from "../../src/json/goquote.js";

test("StableJSON indents like Go's MarshalIndent and ends with a newline", () => {
  assert.equal(stableJSON({ a: [], b: {}, c: [1, "x"] }), '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    "x"\n  ]\n}\n');
});

test("plain objects keep field order; dictionaries and Maps sort keys by UTF-8 bytes", () => {
  const d = dictionary<number>();
  d["b"] = 1;
  d["a"] = 2;
  d["\u{1F600}"] = 3;
  d["\uFF21"] = 4;
  assert.equal(compactJSON({ z: 1, a: d }), '{"z":1,"a":{"a":2,"b":1,"\uFF21":4,"\u{1F600}":3}}');
  assert.equal(compactJSON(new Map([["10", 1], ["9", 2]])), '{"10":1,"9":2}');
});

test("strings are escaped as Go does: HTML characters, U+2028/9, \\b \\f, controls in lower-case hex", () => {
  assert.equal(compactJSON("<a & b>\u2028\u2029\b\f\u0001\u007f\u00e9\"\\"), '"\\u003ca \\u0026 b\\u003e\\u2028\\u2029\\b\\f\\u0001\u007f\u00e9\\"\\\\"');
  assert.equal(compactJSON("\ud800x"), '"\\ufffdx"');
});

test("numbers: Go float formatting and literal JSON numbers verbatim", () => {
  assert.equal(formatFloat(1), "1");
  assert.equal(formatFloat(0.5), "0.5");
  assert.equal(formatFloat(11 / 14), "0.7857142857142857");
  assert.equal(formatFloat(1e21), "1e+21");
  assert.equal(formatFloat(1.5e-7), "1.5e-7");
  assert.equal(formatFloat(-0), "-0");
  assert.throws(() => formatFloat(NaN), /unsupported value: NaN/);
  assert.equal(compactJSON([new JsonNumber("9007199254740993"), new JsonNumber("1.50"), new JsonNumber("1E5")]), "[9007199254740993,1.50,1E5]");
});

test("cycles are refused", () => {
  const a: unknown[] = [];
  a.push(a);
  assert.throws(() => stableJSON(a), /cycle detected in result model/);
});

test("goQuote follows strconv.Quote", () => {
  assert.equal(goQuote('a"b\\c\n\t\u0000\u007f é \u00a0 \u{1F600}'), '"a\\"b\\\\c\\n\\t\\x00\\x7f é \\u00a0 \u{1F600}"');
  assert.deepEqual(goFields("  item\u00a0create\t<name> \u2003x "), ["item", "create", "<name>", "x"]);
});

test("values JSON.stringify cannot express keep Go's bytes at any depth", () => {
  const ints = dictionary<unknown>();
  ints["10"] = 1;
  ints["9"] = new JsonNumber("2.50");
  ints["a"] = [-0, 1n];
  const doc = { outer: [{ m: ints, n: new JsonNumber("1E5") }], tail: new Map<string, unknown>([["b", 1], ["a", { z: 1, y: 2 }]]) };
  assert.equal(
    stableJSON(doc),
    '{\n  "outer": [\n    {\n      "m": {\n        "10": 1,\n        "9": 2.50,\n        "a": [\n          -0,\n          1\n        ]\n      },\n      "n": 1E5\n    }\n  ],\n  "tail": {\n    "a": {\n      "z": 1,\n      "y": 2\n    },\n    "b": 1\n  }\n}\n',
  );
  assert.equal(compactJSON(doc), '{"outer":[{"m":{"10":1,"9":2.50,"a":[-0,1]},"n":1E5}],"tail":{"a":{"z":1,"y":2},"b":1}}');
});

test("escapes: a literal backslash before 'ud800' is text; a lone surrogate becomes U+FFFD; markers cannot be forged", () => {
  assert.equal(compactJSON(["\\ud800", "\\\ud800", "\u0000t0"]), '["\\\\ud800","\\\\\\ufffd","\\u0000t0"]');
  assert.throws(() => stableJSON({ d: new Date(0) }), /custom JSON marshaler unsupported/);
  assert.throws(() => stableJSON({ f: () => 1 }), /unsupported type: function/);
  assert.throws(() => stableJSON({ n: Infinity }), /unsupported value: \+Inf/);
  assert.equal(stableJSON(undefined), "null\n");
});

test("dictionaries already in byte order and numbers JS prints alike are written as they are", () => {
  const sorted = dictionary<unknown>();
  sorted["a"] = new JsonNumber("1.5");
  sorted["b"] = { inner: new JsonNumber("1.50") };
  const unsorted = dictionary<unknown>();
  unsorted["z"] = new JsonNumber("-0");
  unsorted["y"] = new JsonNumber("1e21");
  assert.equal(compactJSON({ sorted, unsorted }), '{"sorted":{"a":1.5,"b":{"inner":1.50}},"unsorted":{"y":1e21,"z":-0}}');
  assert.equal(stableJSON([sorted]), '[\n  {\n    "a": 1.5,\n    "b": {\n      "inner": 1.50\n    }\n  }\n]\n');
});

/** `inner` inside n arrays. */
function nest(n: number, inner: unknown): unknown {
  let v = inner;
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

test("values nested deeper than the call stack allows are still written (as Go does, to its 10,000 levels)", () => {
  assert.equal(compactJSON(nest(100_000, [])), "[".repeat(100_001) + "]".repeat(100_001));
  const n = 10_000;
  let expected = "";
  for (let d = 0; d < n; d++) expected += "  ".repeat(d) + "[\n";
  expected += "  ".repeat(n) + "1.50\n";
  for (let d = n - 1; d >= 0; d--) expected += "  ".repeat(d) + "]\n";
  assert.equal(stableJSON(nest(n, new JsonNumber("1.50"))), expected);
  const ints = dictionary<unknown>();
  ints["10"] = nest(20_000, "<x>");
  assert.equal(compactJSON(ints), '{"10":' + "[".repeat(20_000) + '"\\u003cx\\u003e"' + "]".repeat(20_000) + "}");
  const cyclic: unknown[] = [];
  cyclic.push(nest(5_000, cyclic));
  assert.throws(() => stableJSON(cyclic), /cycle detected in result model/);
});

/** A value with everything StableJSON writes differently from JSON.stringify, small enough for one JSON.stringify pass. */
function awkward(i: number): unknown {
  const ints = dictionary<unknown>();
  ints["10"] = i;
  ints["9"] = new JsonNumber("2.50");
  const unsorted = dictionary<unknown>();
  unsorted["b"] = "<b & \u2028>";
  unsorted["a"] = [-0, 1n, "\ud800"];
  return { i, ints, unsorted, map: new Map<string, unknown>([["z", 1], ["y", new JsonNumber("1E5")]]), skipped: undefined, list: [undefined, null, true, [[]], {}] };
}

/** writeStableJSON's pieces, joined: a large value's are written member by member and in batches, unlike stableJSON's. */
function written(value: unknown): string {
  const pieces: string[] = [];
  writeStableJSON(value, (piece) => pieces.push(piece));
  return pieces.join("");
}

/** Asserts that stableJSON and writeStableJSON both write `value` as `expected`. */
function bothWrite(value: unknown, expected: string, message?: string): void {
  assert.equal(stableJSON(value), expected, message);
  assert.equal(written(value), expected, message);
}

/** The members of a JSON array as stableJSON writes them at depth 1, one string each. */
const members = (values: unknown[]) => values.map((v) => stableJSON([v]).slice(4, -3));

test("a large value is written in pieces (writeStableJSON) and whole (stableJSON) with the same bytes as the whole-value writer gives its parts", () => {
  const values = Array.from({ length: 3000 }, (_, i) => awkward(i));
  const one = members(values);
  bothWrite(values, "[\n  " + one.join(",\n  ") + "\n]\n");
  assert.equal(compactJSON(values), "[" + values.map((v) => compactJSON(v)).join(",") + "]");
  // Two levels down (an object's array member), every line indented once more.
  const doc = { head: awkward(-1), "<key>": values, tail: [] };
  const expected = '{\n  "head": ' + members([awkward(-1)])[0] + ',\n  "\\u003ckey\\u003e": [\n    ' + one.map((m) => m.replaceAll("\n", "\n  ")).join(",\n    ") + "\n  ],\n  \"tail\": []\n}\n";
  bothWrite(doc, expected);
  let pieces = 0;
  writeStableJSON(doc, () => pieces++);
  assert.ok(pieces > 1, `${pieces} piece(s)`);
  // 5,000 members JS would reorder (written in batches of elements), each batch's first at the depth of the batch's first line.
  const maps = Array.from({ length: 5000 }, (_, i) => Object.assign(dictionary<unknown>(), { 10: i, 9: ["<" + i] }));
  const each = members(maps);
  bothWrite(maps, "[\n  " + each.join(",\n  ") + "\n]\n");
  bothWrite({ maps }, '{\n  "maps": [\n    ' + each.map((m) => m.replaceAll("\n", "\n  ")).join(",\n    ") + "\n  ]\n}\n");
});

test("a large value with a member too deep for JSON.stringify is still written whole and in order", () => {
  for (const depth of [3_000, 4_500, 6_000]) {
    const doc = { items: Array.from({ length: 3000 }, (_, i) => i), deep: nest(depth, "<x>") };
    let deep = "";
    for (let d = 0; d < depth; d++) deep += "[\n" + "  ".repeat(d + 2);
    deep += '"\\u003cx\\u003e"';
    for (let d = depth - 1; d >= 0; d--) deep += "\n" + "  ".repeat(d + 1) + "]";
    const items = doc.items.join(",\n    ");
    bothWrite(doc, `{\n  "items": [\n    ${items}\n  ],\n  "deep": ${deep}\n}\n`, `depth ${depth}`);
  }
});

test("writeStableJSON writes nothing when the value cannot be encoded", () => {
  const pieces: string[] = [];
  const values: unknown[] = Array.from({ length: 5000 }, (_, i) => ({ i }));
  values.push({ n: NaN });
  assert.throws(() => writeStableJSON(values, (piece) => pieces.push(piece)), /unsupported value: NaN/);
  assert.deepEqual(pieces, []);
});
