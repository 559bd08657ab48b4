// The literal-keeping JSON reader: values, duplicate keys, and Go's syntax error texts in both dialects.

import { test } from "node:test";
import assert from "node:assert/strict";
import { JsonCursor, JsonDuplicateKeyError, JsonSyntaxError, findSyntaxError, parseJSONLiteral } from "../../src/json/literal.js";
import { JsonNumber, compactJSON } from "../../src/json/stable.js";

function syntaxError(text: string): string {
  const err = findSyntaxError(text);
  assert.ok(err instanceof JsonSyntaxError, `expected a syntax error for ${JSON.stringify(text)}`);
  return err.message;
}

/** A json.Decoder's Token()-driven read of one value (the extensions decoder's dialect). */
function decoderError(text: string): string {
  try {
    new JsonCursor(text, "decoder").readValue(0, true);
  } catch (err) {
    assert.ok(err instanceof JsonSyntaxError);
    return err.message;
  }
  assert.fail(`expected a syntax error for ${JSON.stringify(text)}`);
}

test("numbers keep their literal text; objects are dictionaries that sort on output", () => {
  const v = parseJSONLiteral('{"b":9007199254740993,"a":[1.50,1E5,-0,{"__proto__":true}]}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), null);
  assert.ok(v["b"] instanceof JsonNumber);
  assert.equal((v["b"] as JsonNumber).literal, "9007199254740993");
  assert.equal(compactJSON(v), '{"a":[1.50,1E5,-0,{"__proto__":true}],"b":9007199254740993}');
  const inner = (v["a"] as unknown[])[3] as Record<string, unknown>;
  assert.deepEqual(Object.keys(inner), ["__proto__"]);
});

test("strings decode escapes as Go does, invalid surrogate escapes become U+FFFD", () => {
  assert.equal(parseJSONLiteral('"a\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"'), 'a"\\/\b\f\n\r\té');
  assert.equal(parseJSONLiteral('"\\ud83d\\ude00"'), "\u{1F600}");
  assert.equal(parseJSONLiteral('"\\ud800x"'), "\ufffdx");
  assert.equal(parseJSONLiteral('"\\udc00"'), "\ufffd");
  assert.equal(parseJSONLiteral('"\\ud800\\u0041"'), "\ufffdA");
});

test("duplicate keys: last wins by default, rejected with a dotted/indexed path on request", () => {
  assert.equal(compactJSON(parseJSONLiteral('{"a":1,"a":2}')), '{"a":2}');
  const cases: [string, string][] = [
    ['{"a":1,"a":2}', "a"],
    ['{"a":{"b":[0,{"c":1,"c":2}]}}', "a.b[1].c"],
    ['[{"x":1},{"x":1,"x":1}]', "[1].x"],
    ['{"":{"k":1,"k":2}}', "k"],
  ];
  for (const [text, path] of cases) {
    assert.throws(
      () => parseJSONLiteral(text, { rejectDuplicates: true }),
      (err: unknown) => err instanceof JsonDuplicateKeyError && err.path === path && err.message === `duplicate key ${JSON.stringify(path)}`,
    );
  }
  // A syntax error anywhere wins over a duplicate key, as json.Unmarshal validates first.
  assert.throws(() => parseJSONLiteral('{"a":1,"a":2,}', { rejectDuplicates: true }), JsonSyntaxError);
});

test("json.Unmarshal syntax error texts", () => {
  const cases: [string, string][] = [
    ["", "unexpected end of JSON input"],
    ["  ", "unexpected end of JSON input"],
    ["{", "unexpected end of JSON input"],
    ['{"a":1', "unexpected end of JSON input"],
    ['"abc', "unexpected end of JSON input"],
    ["x", "invalid character 'x' looking for beginning of value"],
    ["}", "invalid character '}' looking for beginning of value"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ["{,}", "invalid character ',' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{"a"}', "invalid character '}' after object key"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ['{"a":1]', "invalid character ']' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["[1}", "invalid character '}' after array element"],
    ["{} {}", "invalid character '{' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ["-x", "invalid character 'x' in numeric literal"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["1ex", "invalid character 'x' in exponent of numeric literal"],
    ["1e+", "invalid character ' ' in exponent of numeric literal"],
    ["-", "invalid character ' ' in numeric literal"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ["fx", "invalid character 'x' in literal false (expecting 'a')"],
    ["nul", "invalid character ' ' in literal null (expecting 'l')"],
    ['"\\', "invalid character ' ' in string escape code"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ["\u00e9", "invalid character 'Ã' looking for beginning of value"],
    ["\ufeff{}", "invalid character 'ï' looking for beginning of value"],
    ["\u0001", "invalid character '\\x01' looking for beginning of value"],
  ];
  for (const [text, message] of cases) assert.equal(syntaxError(text), message, JSON.stringify(text));
  assert.equal(findSyntaxError(' {"a": [1, 2.5e-3, true, false, null, "x"]} '), null);
});

test("nesting: 10000 levels are fine, the 10001st is Go's `exceeded max depth`; no recursion limit", () => {
  assert.equal(findSyntaxError("[".repeat(10000) + "]".repeat(10000)), null);
  assert.equal(syntaxError("[".repeat(10001) + "]".repeat(10001)), "invalid character '[' exceeded max depth");
  const deep = new JsonCursor("[".repeat(50000) + "]".repeat(50000), "decoder").readValue();
  assert.ok(Array.isArray(deep));
});

test("json.Decoder (Token API) error texts differ at the end of input and right after `{`", () => {
  const cases: [string, string][] = [
    ["{", "EOF"],
    ['{"a":', "EOF"],
    ['{"a":1', "EOF"],
    ['{"a":1.', "unexpected EOF"],
    ['{"a":"x', "unexpected EOF"],
    ['{"a":tr', "unexpected EOF"],
    ["{,}", "invalid character ','"],
    ["{]", "invalid character ']'"],
    ["{1:2}", "invalid character '1'"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["[1 2]", "invalid character '2' after array element"],
  ];
  for (const [text, message] of cases) assert.equal(decoderError(text), message, JSON.stringify(text));
});

const tok = (text: string) => new JsonCursor(text, "decoder").tokenText();

test("tokenText prints the next token as Go's %v of a json.Token", () => {
  assert.equal(tok(" {"), "{");
  assert.equal(tok("[1]"), "[");
  assert.equal(tok('"a\\u0041"'), "aA");
  assert.equal(tok("1.50x"), "1.50");
  assert.equal(tok("null"), "<nil>");
  assert.equal(tok("false"), "false");
  assert.throws(() => tok("}"), { message: "invalid character '}' looking for beginning of value" });
});

test("readValue: the recursive reader hands deep values, duplicates and errors to the walk with the same result", () => {
  // Past 200 levels the walk reads the value again from its start.
  const deep = "[".repeat(300) + '{"k":1.50}' + "]".repeat(300);
  assert.equal(compactJSON(parseJSONLiteral(deep, { rejectDuplicates: true })), deep);
  const cursor = new JsonCursor(`[${deep}, "after"]`);
  assert.equal(compactJSON(cursor.readValue()), `[${deep},"after"]`);
  cursor.finish();
  // A duplicate deep inside: the walk's path label, and a syntax error later on still wins.
  assert.throws(() => parseJSONLiteral('{"a":[0,{"b":{"c":1,"c":2}}]}', { rejectDuplicates: true }), { message: 'duplicate key "a[1].b.c"' });
  assert.throws(() => parseJSONLiteral('{"a":[0,{"b":{"c":1,"c":2}}],}', { rejectDuplicates: true }), { message: "invalid character '}' looking for beginning of object key string" });
  assert.equal(compactJSON(parseJSONLiteral('{"a":{"c":1,"c":[2,3]}}')), '{"a":{"c":[2,3]}}');
  // Arrays are exact, holes-free copies; a failed quick read leaves no elements behind.
  const arrays = new JsonCursor('[[1,[2,3],4],[{"x":[5]}]]').readValue() as unknown[][];
  assert.deepEqual(arrays.map((a) => a.length), [3, 1]);
  const retry = new JsonCursor(`[[1,2,{"d":1,"d":2}],[3]]`);
  assert.throws(() => retry.readValue(0, true), { message: 'duplicate key "[0][2].d"' });
  assert.equal(compactJSON(new JsonCursor("[[1,2],[3]]").readValue(0, true)), "[[1,2],[3]]");
});

test("dictionaries from the reader are null-prototype objects whatever their keys", () => {
  const v = parseJSONLiteral('{"__proto__":{"constructor":1},"toString":2,"1":3,"0":4}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), null);
  assert.deepEqual(Object.keys(v), ["0", "1", "__proto__", "toString"]);
  assert.equal(Object.getPrototypeOf(v["__proto__"]), null);
  assert.equal(compactJSON(v), '{"0":4,"1":3,"__proto__":{"constructor":1},"toString":2}');
});
