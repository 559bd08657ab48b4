// The loader: pack folders, surface.json paths, pack directories, io errors with positions, file order of issues.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatIssue, loadPack, loadPacks } from "../../src/pack/index.js";
import { codes, fixture } from "./helpers.js";

function tmp(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), "pack-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function writePack(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const HARNESS = "---\nname: demo\ndescription: Demo pack.\n---\n# Demo\n";
const surfaceText = (id: string) => JSON.stringify({ id, kind: "composite", verbs: { run: { description: "Run.", cli: ["demo", "run"], policy: "read" } } });

test("the ledger fixture loads from its folder or its surface.json path", () => {
  for (const p of [fixture("examples/hcp/ledger"), fixture("examples/hcp/ledger/surface.json")]) {
    const pack = loadPack(p);
    assert.equal(pack.ok, true);
    assert.equal(pack.surface?.id, "ledger");
    assert.equal(pack.meta?.pack_id, "ledger");
    assert.equal(pack.root, fixture("examples/hcp/ledger"));
    assert.deepEqual(codes(pack.issues), [["policy", ""], ["not_conforming", ""]]); // no policy.json, no HARNESS.md
  }
});

test("a complete pack loads with policy and HARNESS.md", (t) => {
  const dir = writePack(join(tmp(t), "demo"), {
    "surface.json": surfaceText("demo"),
    "policy.json": JSON.stringify({ surface_id: "demo", verbs: { run: "read" } }),
    "HARNESS.md": HARNESS,
  });
  const pack = loadPack(dir);
  assert.deepEqual(pack.issues, []);
  assert.equal(pack.ok, true);
  assert.equal(pack.policy?.verbs?.run, "read");
  assert.equal(pack.harness?.frontmatter?.name, "demo");
  assert.equal(pack.harness?.body, "# Demo\n");
});

test("invalid JSON is an io issue with the parser's position", (t) => {
  const dir = writePack(join(tmp(t), "bad"), { "surface.json": '{\n  "id": "bad",\n  "verbs": }\n', "policy.json": '{"surface_id": "bad",' });
  const pack = loadPack(dir);
  assert.equal(pack.ok, false);
  assert.equal(pack.surface, null);
  assert.deepEqual(codes(pack.issues), [["io", ""], ["io", ""]]);
  assert.match(pack.issues[0]!.message, /^invalid JSON at line 3, column 12: /);
  assert.equal(pack.issues[0]!.file, "surface.json");
  assert.equal(pack.issues[1]!.file, "policy.json");
  assert.match(formatIssue(pack.issues[0]!), /^surface\.json: io: invalid JSON at line 3/);
});

test("a missing or unreadable surface.json is an io error", (t) => {
  const root = tmp(t);
  const missing = loadPack(join(root, "nope"));
  assert.deepEqual(codes(missing.issues), [["io", ""]]);
  assert.match(missing.issues[0]!.message, /cannot read surface\.json/);
  mkdirSync(join(root, "dirsurface", "surface.json"), { recursive: true });
  assert.deepEqual(codes(loadPack(join(root, "dirsurface")).issues), [["io", ""]]);
});

test("the surface_id mismatch is reported against surface.json, before policy.json issues", (t) => {
  const dir = writePack(join(tmp(t), "demo"), {
    "surface.json": surfaceText("demo"),
    "policy.json": JSON.stringify({ surface_id: "other", x: 1 }),
    "HARNESS.md": "no frontmatter",
  });
  const pack = loadPack(dir);
  assert.deepEqual(pack.issues.map((i) => [i.file, i.code, i.path]), [
    ["surface.json", "missing_verb", "id"],
    ["policy.json", "policy", "x"],
    ["HARNESS.md", "invalid_meta", ""],
  ]);
});

test("inline harness is used without HARNESS.md, with its deprecation warning", (t) => {
  const doc = JSON.parse(surfaceText("demo"));
  doc.harness = "# Inline";
  const pack = loadPack(writePack(join(tmp(t), "demo"), { "surface.json": JSON.stringify(doc) }));
  assert.equal(pack.ok, true);
  assert.deepEqual(pack.harness, { frontmatter: null, body: "# Inline", source: "inline" });
  assert.deepEqual(codes(pack.issues, "warning"), [["deprecated", "harness"], ["policy", ""]]);
});

test("a pack directory loads every subfolder with a surface.json, in name order; duplicate ids are errors", (t) => {
  const root = tmp(t);
  writePack(join(root, "b"), { "surface.json": surfaceText("beta"), "HARNESS.md": HARNESS });
  writePack(join(root, "a"), { "surface.json": surfaceText("alpha"), "HARNESS.md": HARNESS });
  writePack(join(root, "c"), { "surface.json": surfaceText("alpha"), "HARNESS.md": HARNESS });
  mkdirSync(join(root, "bins"));
  const packs = loadPacks([root]);
  assert.deepEqual(packs.map((p) => p.surface?.id), ["alpha", "beta", "alpha"]);
  assert.deepEqual(packs.map((p) => p.ok), [true, true, false]);
  assert.deepEqual(codes(packs[2]!.issues, "error"), [["invalid_meta", "id"]]);
  assert.deepEqual(loadPacks([join(root, "a"), join(root, "b", "surface.json")]).map((p) => p.surface?.id), ["alpha", "beta"]);
  const empty = loadPacks([join(root, "bins")]);
  assert.deepEqual(codes(empty[0]!.issues), [["io", ""]]);
});
