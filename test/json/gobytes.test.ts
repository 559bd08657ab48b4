// Bytes read as Go's encoding/json reads them: each invalid UTF-8 byte is named in errors and becomes its own U+FFFD.

import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeGoBytes } from "../../src/json/gobytes.js";
import { findSyntaxError, parseJSONLiteral } from "../../src/json/literal.js";
import { stableJSON } from "../../src/json/stable.js";

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));
const read = (b: Buffer) => parseJSONLiteral(decodeGoBytes(b));
const error = (b: Buffer) => findSyntaxError(decodeGoBytes(b))?.message;

test("valid UTF-8 (astral characters, a literal U+FFFD, a BOM) decodes unchanged", () => {
  const text = "\ufeff{\"a\":\"\u{1f480}\u{10080}\ufffd\u00e9\"}";
  assert.equal(decodeGoBytes(Buffer.from(text, "utf8")), text);
  assert.deepEqual({ ...(parseJSONLiteral(text.slice(1)) as object) }, { a: "\u{1f480}\u{10080}\ufffd\u00e9" });
});

test("in a string, every invalid byte is one U+FFFD (Go: utf8.DecodeRune size 1), a truncated sequence included", () => {
  assert.equal(stableJSON(read(bytes('{"t":"t', [0xe2, 0x82], 'x"}'))), '{\n  "t": "t\ufffd\ufffdx"\n}\n');
  assert.equal(stableJSON(read(bytes('["', [0xed, 0xa0, 0x80, 0xff, 0xc0, 0xaf], '\u{1f480}"]'))), '[\n  "\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\u{1f480}"\n]\n');
  assert.equal(stableJSON(read(bytes('{"k', [0xf4, 0x90, 0x80, 0x80], '":1}'))), '{\n  "k\ufffd\ufffd\ufffd\ufffd": 1\n}\n');
});

test("outside a string, the error names the actual byte as Go's scanner does", () => {
  assert.equal(error(bytes('{"a" ', [0xff], "}")), "invalid character '\u00ff' after object key");
  assert.equal(error(bytes("[1,", [0xe2, 0x82], "]")), "invalid character '\u00e2' looking for beginning of value");
  assert.equal(error(bytes([0x85])), "invalid character '\\u0085' looking for beginning of value");
  assert.equal(error(bytes("\u00e9")), "invalid character '\u00c3' looking for beginning of value");
  assert.equal(error(bytes("\ufeff{}")), "invalid character '\u00ef' looking for beginning of value");
});
