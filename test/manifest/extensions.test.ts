// Extension rules, codec, copy and helper checks with Go rungrad's exact texts.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  cloneExtensionSet,
  decodeExtensions,
  encodeExtensions,
  requireExtensionDocPath,
  requireExtensionEnum,
  requireExtensionFields,
  validateExtensionSet,
} from "../../src/manifest/extensions.js";
import { ExtensionError } from "../../src/manifest/errors.js";
import { parseManifest } from "../../src/manifest/decode.js";
import { JsonNumber } from "../../src/json/stable.js";
import type { ExtensionSet } from "../../src/manifest/types.js";

const NS = "example.com/product";

function failure(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof ExtensionError, String(err));
    return err.message;
  }
  assert.fail("expected an ExtensionError");
}

const invalid = (set: unknown) => failure(() => validateExtensionSet(set as ExtensionSet));

test("namespaces: shape, reserved prefixes, null, sorted order; empty objects pass", () => {
  validateExtensionSet({ [NS]: { owner: "platform", count: 2, tags: ["a"], nested: { path: true } }, "a.b/c": {} });
  assert.equal(invalid({ "Example.com/product": {} }), 'extension namespace "Example.com/product": invalid namespace');
  assert.equal(invalid({ "github.com/a/b": {} }), 'extension namespace "github.com/a/b": invalid namespace');
  assert.equal(invalid({ "rungrad/x": {} }), 'extension namespace "rungrad/x": reserved namespace');
  assert.equal(invalid({ "rungrad.x/y": {} }), 'extension namespace "rungrad.x/y": reserved namespace');
  assert.equal(invalid({ [NS]: null }), `extension namespace "${NS}": null value`);
  assert.equal(invalid({ "z.com/x": { a: null }, "b.com/x": { b: null } }), "b.com/x.b: null value");
  assert.equal(invalid({ [NS]: "x" }), `extension namespace "${NS}": non-object namespace value`);
});

test("fields: core names only at the top level, values in sorted order with labels", () => {
  assert.equal(invalid({ [NS]: { supports_dry_run: true } }), `extension namespace "${NS}" field "supports_dry_run": core field contradiction`);
  assert.equal(invalid({ [NS]: { a: null, path: 1 } }), `${NS}.a: null value`);
  assert.equal(invalid({ [NS]: { o: { b: [1, [null]], a: 1 } } }), `${NS}.o.b[1][0]: null value`);
  assert.equal(invalid({ [NS]: { r: Infinity } }), `${NS}.r: non-finite number`);
  assert.equal(invalid({ [NS]: { r: new JsonNumber("01") } }), `${NS}.r: invalid number "01"`);
  assert.equal(invalid({ [NS]: { r: new JsonNumber("1e400") } }), `${NS}.r: invalid number "1e400"`);
  assert.equal(invalid({ [NS]: { f: () => 1 } }), `${NS}.f: unsupported value type func`);
  assert.equal(invalid({ [NS]: { d: new Date(0) } }), `${NS}.d: custom JSON marshaler unsupported`);
  assert.equal(invalid({ [NS]: { m: new Map([[1, "one"]]) } }), `${NS}.m: non-string map key`);
  const cycle: Record<string, unknown> = {};
  cycle["self"] = cycle;
  assert.equal(invalid({ [NS]: { c: cycle } }), `${NS}.c.self: cycle detected`);
  const shared = ["x"];
  validateExtensionSet({ [NS]: { tree: [shared, shared] } });
  validateExtensionSet({ [NS]: { deep: JSON.parse("[".repeat(5000) + "]".repeat(5000)) } });
});

test("decode then encode: canonical compact JSON, literals verbatim, Go escaping", () => {
  const set = decodeExtensions(`{"${NS}":{"z":{"b":2,"a":1},"large":9007199254740993,"h":"<&>\u2028","x":1.50,"e":1E5}}`)!;
  assert.equal(encodeExtensions(set), `{"${NS}":{"e":1E5,"h":"\\u003c\\u0026\\u003e\\u2028","large":9007199254740993,"x":1.50,"z":{"a":1,"b":2}}}`);
  assert.equal(decodeExtensions(" \t\n\u00a0"), undefined);
  assert.equal(encodeExtensions({ [NS]: { zeta: { b: 2, a: 1 }, alpha: ["first"], n: 0.5, big: 12n } } as unknown as ExtensionSet), `{"${NS}":{"alpha":["first"],"big":12,"n":0.5,"zeta":{"a":1,"b":2}}}`);
  assert.equal(encodeExtensions({}), "");
  assert.equal(encodeExtensions(null), "");
  assert.equal(encodeExtensions({ [NS]: {} }), "");
  assert.equal(failure(() => encodeExtensions({ "Bad/x": {} })), 'extension namespace "Bad/x": invalid namespace');
});

const decodeFailure = (text: string) => failure(() => decodeExtensions(text));

test("decode errors: duplicates, trailing data, shape, syntax (json.Decoder texts), then validation", () => {
  assert.equal(decodeFailure(`{"${NS}":{},"${NS}":{}}`), `extensions: duplicate key "${NS}"`);
  assert.equal(decodeFailure(`{"${NS}":{"a":{"b":1,"b":2}}}`), `extensions: duplicate key "${NS}.a.b"`);
  assert.equal(decodeFailure(`{"${NS}":{}} "s"`), "extensions: trailing data after top-level value s");
  assert.equal(decodeFailure(`{"${NS}":{}} null`), "extensions: trailing data after top-level value <nil>");
  assert.equal(decodeFailure(`{"${NS}":{}} 1E5`), "extensions: trailing data after top-level value 1E5");
  assert.equal(decodeFailure(`{"${NS}":{}} x`), "invalid character 'x' looking for beginning of value");
  assert.equal(decodeFailure("null"), "extensions must be a JSON object");
  assert.equal(decodeFailure(`{"${NS}":[]}`), `extension namespace "${NS}": non-object namespace value`);
  assert.equal(decodeFailure(`{"${NS}":null}`), `extension namespace "${NS}": null value`);
  assert.equal(decodeFailure(`{"${NS}":{"a":1,}`), "invalid character '}' looking for beginning of object key string");
  assert.equal(decodeFailure(`{"${NS}":`), "EOF");
  assert.equal(decodeFailure(`{"${NS}":{"path":1}}`), `extension namespace "${NS}" field "path": core field contradiction`);
});

test("decode: of several null or non-object namespaces, the first written is named (Go's map order favours it)", () => {
  assert.equal(decodeFailure('{"z.com/a":{},"y.com/b":1,"b.com/c":null}'), 'extension namespace "y.com/b": non-object namespace value');
  assert.equal(decodeFailure('{"z.com/a":null,"a.com/b":[]}'), 'extension namespace "z.com/a": null value');
  // Integer-like keys, which a JS object lists first, keep their written place too.
  assert.equal(decodeFailure('{"x":null,"7":1}'), 'extension namespace "x": null value');
  const manifest = '{"commands":[{"path":[],"extensions":{"z.com/a":"s","a.com/b":null}}]}';
  assert.throws(() => parseManifest(manifest), { message: 'extension namespace "z.com/a": non-object namespace value' });
});

test("cloneExtensionSet: a deep copy with dictionaries, JsonNumbers kept", () => {
  const original = { [NS]: { n: new JsonNumber("1.50"), list: [{ b: 1, a: 2 }] } };
  const copy = cloneExtensionSet(original);
  assert.notEqual(copy[NS], original[NS]);
  assert.equal(Object.getPrototypeOf(copy[NS]!), null);
  assert.ok(copy[NS]!["n"] instanceof JsonNumber);
  assert.equal(encodeExtensions(copy), `{"${NS}":{"list":[{"a":2,"b":1}],"n":1.50}}`);
});

test("cloneExtensionSet: shared values are copied, holes and Maps kept; cycles found however deep they start", () => {
  const shared = { k: 1 };
  const holey: unknown[] = [shared];
  holey[2] = 3;
  const copy = cloneExtensionSet({ [NS]: { a: shared, b: holey, m: new Map<unknown, unknown>([[2, shared]]) } as never });
  const obj = copy[NS] as Record<string, unknown>;
  assert.notEqual(obj["a"], shared);
  assert.notEqual(obj["a"], (obj["b"] as unknown[])[0]);
  assert.equal(1 in (obj["b"] as unknown[]), false);
  assert.equal(Object.getPrototypeOf(obj["m"]), null);
  assert.equal(JSON.stringify(obj["m"]), '{"2":{"k":1}}');
  const cycle: Record<string, unknown> = {};
  cycle["self"] = cycle;
  assert.throws(() => cloneExtensionSet({ [NS]: { c: cycle } as never }), { message: "extensions: cycle detected" });
  const deep: Record<string, unknown> = {};
  let at = deep;
  for (let i = 0; i < 300; i++) at = at["n"] = {};
  at["back"] = deep;
  assert.throws(() => cloneExtensionSet({ [NS]: { d: deep } as never }), { message: "extensions: cycle detected" });
});

test("validation: a set with several failures reports the first in sorted order", () => {
  assert.equal(invalid({ "b.com/x": { path: 1 }, "a.com/y": { z: null, y: Number.NaN } }), 'a.com/y.y: non-finite number');
  assert.equal(invalid({ "z.com/x": {}, "rungrad/x": {}, "Bad": {} }), 'extension namespace "Bad": invalid namespace');
  const deep: Record<string, unknown> = {};
  let at = deep;
  for (let i = 0; i < 300; i++) at = at["n"] = {};
  assert.doesNotThrow(() => validateExtensionSet({ [NS]: { d: deep } } as unknown as ExtensionSet));
});

test("helpers: required fields, enums and doc paths", () => {
  const set: ExtensionSet = { [NS]: { owner: "platform", zero: 0, no: false, list: ["a"], obj: { k: "v" }, empty: "", none: [], status: "beta", count: 2, docs: "docs/read.md" } };
  requireExtensionFields(set, NS, "owner", "zero", "no", "list", "obj");
  const missing = (f: string) => `extension namespace "${NS}" field "${f}": required field is empty or missing`;
  assert.equal(failure(() => requireExtensionFields(null, NS)), `extension namespace "${NS}": required namespace is missing`);
  assert.equal(failure(() => requireExtensionFields(set, NS, "owner", "empty")), missing("empty"));
  assert.equal(failure(() => requireExtensionFields(set, NS, "none")), missing("none"));
  assert.equal(failure(() => requireExtensionFields(set, NS, "absent")), missing("absent"));
  requireExtensionEnum(set, NS, "status", "alpha", "beta");
  assert.equal(failure(() => requireExtensionEnum(set, NS, "status", "alpha", "stable")), `extension namespace "${NS}" field "status": value "beta" not in allowed set [alpha stable]`);
  assert.equal(failure(() => requireExtensionEnum(set, NS, "count", "2")), `extension namespace "${NS}" field "count": must be a string`);
  assert.equal(failure(() => requireExtensionEnum(set, NS, "absent")), missing("absent"));
  requireExtensionDocPath(set, NS, "docs");
  const doc = (p: string) => failure(() => requireExtensionDocPath({ [NS]: { d: p } }, NS, "d"));
  const docError = (problem: string) => `extension namespace "${NS}" field "d": ${problem}`;
  assert.equal(doc(""), docError("required field is empty or missing"));
  assert.equal(doc("/docs/read.md"), docError("must be a relative path"));
  assert.equal(doc("https://example.com/read"), docError("must not be a URL"));
  assert.equal(doc("mailto:docs@example.com"), docError("must not be a URL"));
  assert.equal(doc("docs/./read.md"), docError("must be a clean path"));
  assert.equal(doc("docs/"), docError("must be a clean path"));
  assert.equal(doc("../read.md"), docError("must not escape via .."));
  assert.equal(failure(() => requireExtensionDocPath(set, "other.com/x", "d")), 'extension namespace "other.com/x": required namespace is missing');
});

test("extension values nested far deeper than the call stack copy and project (Go's decoder allows 10,000 levels)", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 9_000; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
  const copy = cloneExtensionSet({ "a.com/x": { v: deep as never } });
  let a: unknown = (copy["a.com/x"] as Record<string, unknown>)["v"];
  let b: unknown = deep;
  for (let i = 0; i < 9_000; i++) {
    assert.notEqual(a, b);
    a = Array.isArray(a) ? a[0] : (a as Record<string, unknown>)["k"];
    b = Array.isArray(b) ? b[0] : (b as Record<string, unknown>)["k"];
  }
  assert.equal(a, "leaf");
});
