// The rungrad example fixtures for manifest decoding/validation and the extension codec, byte for byte.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseManifest } from "../../src/manifest/decode.js";
import { decodeExtensions, encodeExtensions } from "../../src/manifest/extensions.js";
import { validateManifest } from "../../src/manifest/validate.js";
import { ExtensionError, ManifestDecodeError, ManifestError, UnsupportedVersionError } from "../../src/manifest/errors.js";
import { loadExample } from "../agentmeta/fixtures.js";

interface ValidateCase {
  name: string;
  manifest?: unknown;
  manifest_raw?: string;
  expect_valid?: boolean;
  expect_error?: string;
  expect_error_type?: string;
  expect_decode_error?: string;
}

interface CodecCase {
  name: string;
  input: string;
  expect_encoded?: string;
  expect_error?: string;
}

for (const c of loadExample<{ cases: ValidateCase[] }>("manifest_validate.json").cases) {
  test(`manifest_validate: ${c.name}`, () => {
    const text = c.manifest_raw ?? JSON.stringify(c.manifest ?? null);
    if (c.expect_decode_error !== undefined) {
      assert.throws(() => parseManifest(text), (err: unknown) => err instanceof ManifestDecodeError && err.message === c.expect_decode_error);
      return;
    }
    const m = parseManifest(text);
    if (c.expect_valid) {
      validateManifest(m);
      return;
    }
    assert.throws(
      () => validateManifest(m),
      (err: unknown) => {
        assert.ok(err instanceof ManifestError);
        assert.equal(err.message, c.expect_error);
        assert.equal(err instanceof UnsupportedVersionError, c.expect_error_type === "UnsupportedVersionError");
        return true;
      },
    );
  });
}

for (const c of loadExample<{ cases: CodecCase[] }>("extensions_codec.json").cases) {
  test(`extensions_codec: ${c.name}`, () => {
    if (c.expect_error !== undefined) {
      assert.throws(() => encodeExtensions(decodeExtensions(c.input)), (err: unknown) => err instanceof ExtensionError && err.message === c.expect_error);
      return;
    }
    assert.equal(encodeExtensions(decodeExtensions(c.input)), c.expect_encoded);
  });
}
