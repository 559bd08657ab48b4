// validateManifest: Go's Validate rules in order, with exact texts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseManifest } from "../../src/manifest/decode.js";
import { validateManifest, pathLabel } from "../../src/manifest/validate.js";
import { ManifestError, UnsupportedVersionError } from "../../src/manifest/errors.js";

const cmd = (path: unknown, extra: Record<string, unknown> = {}) => ({ path, examples: [], related: [], output_modes: [], local_flags: [], ...extra });
const wire = (commands: unknown, extra: Record<string, unknown> = {}) => ({ schema_version: "rungrad-manifest/1", tool_name: "t", global_flags: [], commands, ...extra });

function problem(value: unknown): string {
  const m = parseManifest(JSON.stringify(value));
  try {
    validateManifest(m);
  } catch (err) {
    assert.ok(err instanceof ManifestError);
    return err.message;
  }
  return "valid";
}

test("rules in Go's order with exact texts", () => {
  assert.throws(() => validateManifest(null), { message: "manifest is nil" });
  assert.equal(problem({}), "manifest is missing schema_version");
  assert.throws(() => validateManifest(parseManifest('{"schema_version":"v2"}')), (e: unknown) => e instanceof UnsupportedVersionError && e.message === 'unsupported manifest schema version "v2"');
  assert.equal(problem(wire([], { tool_name: "" })), "manifest is missing tool_name");
  assert.equal(problem(wire([], { global_flags: null })), "manifest global_flags must be an array");
  assert.equal(problem(wire(null)), "manifest commands must be an array");
  assert.equal(problem(wire([])), "manifest has no commands");
  assert.equal(problem(wire([cmd([]), { path: null }])), "manifest command 1 has no path array");
  assert.equal(problem(wire([cmd([]), null])), "manifest command 1 has no path array");
  assert.equal(problem(wire([cmd([]), cmd(["a"], { examples: null })])), "manifest command a examples must be an array");
  assert.equal(problem(wire([cmd([]), cmd(["a"], { related: null })])), "manifest command a related must be an array");
  assert.equal(problem(wire([cmd([], { output_modes: null })])), "manifest command [] output_modes must be an array");
  assert.equal(problem(wire([cmd(["a", "b"], { local_flags: null })])), "manifest command a b local_flags must be an array");
  assert.equal(problem(wire([cmd(["a", ""], { extensions: { "x.com/y": { path: 1 } } })])), 'manifest command a : extension namespace "x.com/y" field "path": core field contradiction');
  assert.equal(problem(wire([cmd(["item", ""])])), "manifest command item  has an empty path segment");
  assert.equal(problem(wire([cmd(["a\u2028b"])])), "manifest command a\u2028b has a path segment with whitespace");
  assert.equal(problem(wire([cmd(["a\u00a0"])])), "manifest command a\u00a0 has a path segment with whitespace");
  assert.equal(problem(wire([cmd([]), cmd(["a", "b"]), cmd(["a", "b"])])), "manifest has duplicate command path a b");
  assert.equal(problem(wire([cmd(["a"])])), "manifest has no root command (path: [])");
  assert.equal(problem(wire([cmd(["a"]), cmd([], { extensions: { "x.com/y": {} } })])), "valid");
  assert.equal(pathLabel([]), "[]");
});
