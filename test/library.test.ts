import { test } from "node:test";
import assert from "node:assert/strict";
import {
  decodeExtensions,
  decodeGoBytes,
  encodeExtensions,
  fromManifest,
  ManifestError,
  parseManifest,
  renderSkill,
  stableJSON,
  UnsupportedVersionError,
  validateManifest,
} from "rungrad";
import { loadExample } from "./agentmeta/fixtures.js";

const rgref = loadExample<{ expect_manifest_stable_json: string; expect_agentmeta: object }>("rgref_reference.json");

test("the package root exposes the core: parse, validate, project, StableJSON, extensions, skills", () => {
  const manifest = parseManifest(rgref.expect_manifest_stable_json);
  assert.equal(stableJSON(manifest), rgref.expect_manifest_stable_json);
  validateManifest(manifest);
  const doc = fromManifest(manifest);
  assert.equal(stableJSON(doc), stableJSON(rgref.expect_agentmeta));
  assert.deepEqual(
    renderSkill(doc).map((f) => f.path),
    [".agents/README.md", ".agents/skills/rgref/SKILL.md"],
  );
  assert.equal(encodeExtensions(decodeExtensions('{"b.com/x":{"z":1.50,"a":true}}')!), '{"b.com/x":{"a":true,"z":1.50}}');
});

test("errors are typed and carry Go's exact text", () => {
  assert.throws(() => fromManifest(parseManifest('{"schema_version":"rungrad-manifest/9"}')), (e: unknown) => {
    return e instanceof UnsupportedVersionError && e instanceof ManifestError && e.message === 'unsupported manifest schema version "rungrad-manifest/9"';
  });
  assert.throws(() => validateManifest(parseManifest("{}")), { message: "manifest is missing schema_version" });
});

test("decodeGoBytes reads bytes as Go's encoding/json does: the invalid byte is named, one U+FFFD per byte in strings", () => {
  assert.throws(() => parseManifest(decodeGoBytes(Buffer.from([0x7b, 0xff]))), { message: "invalid character '\u00ff' looking for beginning of object key string" });
  const m = parseManifest(decodeGoBytes(Buffer.concat([Buffer.from('{"tool_name":"t'), Buffer.from([0xe2, 0x82]), Buffer.from('x"}')])));
  assert.equal(m.tool_name, "t\ufffd\ufffdx");
});
