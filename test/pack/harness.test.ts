// HARNESS.md: frontmatter through the yaml library; bad frontmatter is an issue, never an exception.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseHarness } from "../../src/pack/index.js";
import { codes } from "./helpers.js";

test("frontmatter name and description, then the body", () => {
  const r = parseHarness("---\nname: ledger\ndescription: \"Run ledger: read and gated writes.\"\nlicense: MIT\n---\n# Ledger\n\nUse it.\n");
  assert.deepEqual(r.issues, []);
  assert.deepEqual(r.harness, {
    frontmatter: { name: "ledger", description: "Run ledger: read and gated writes.", license: "MIT" },
    body: "# Ledger\n\nUse it.\n",
    source: "HARNESS.md",
  });
  const crlf = parseHarness("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nbody");
  assert.deepEqual([crlf.issues, crlf.harness.body], [[], "body"]);
});

test("missing or broken frontmatter is an issue with the whole text as body", () => {
  const none = parseHarness("# Ledger\n");
  assert.deepEqual(codes(none.issues), [["invalid_meta", ""]]);
  assert.equal(none.harness.body, "# Ledger\n");
  assert.equal(none.issues[0]!.file, "HARNESS.md");
  assert.deepEqual(codes(parseHarness("---\nname: a\n").issues), [["invalid_meta", ""]]); // unclosed
  assert.deepEqual(codes(parseHarness("---\nname: [a\ndescription: b\n---\n").issues, "error").slice(0, 1), [["invalid_meta", ""]]);
  assert.deepEqual(codes(parseHarness("---\n- a\n---\n").issues), [["invalid_meta", ""]]);
  assert.deepEqual(codes(parseHarness("---\n---\nbody").issues), [["invalid_meta", ""]]);
  assert.deepEqual(codes(parseHarness("---\nname: a\nname: b\ndescription: c\n---\n").issues), [["invalid_meta", ""]]);
});

test("name and description must be non-empty strings; Agent Skills style is a warning", () => {
  assert.deepEqual(codes(parseHarness("---\nname: 3\n---\n").issues), [["invalid_meta", "name"], ["invalid_meta", "description"]]);
  assert.deepEqual(codes(parseHarness("---\nname: a\ndescription: '  '\n---\n").issues), [["invalid_meta", "description"]]);
  const style = parseHarness(`---\nname: Ledger_Pack\ndescription: ${"x".repeat(1025)}\n---\n`);
  assert.deepEqual(codes(style.issues, "warning"), [["not_conforming", "name"], ["not_conforming", "description"]]);
  assert.equal(style.harness.frontmatter?.name, "Ledger_Pack");
});
