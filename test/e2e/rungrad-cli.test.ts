import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, writeFile, readdir } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stableJSON } from "../../src/json/stable.js";
import { tempDir } from "../temp.js";
import { fixture, rungrad } from "./helpers.js";

const rgref = JSON.parse(readFileSync(fixture("examples/rungrad/rgref_reference.json"), "utf8"));
const validation = JSON.parse(readFileSync(fixture("examples/rungrad/manifest_validate.json"), "utf8"));
const caseText = (c: { manifest?: unknown; manifest_raw?: string }) => c.manifest_raw ?? JSON.stringify(c.manifest);

test("rungrad agentmeta prints exactly the expected rgref document", async () => {
  const r = await rungrad(["agentmeta", "examples/manifests/rgref.json"]);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.equal(r.stdout, stableJSON(rgref.expect_agentmeta));
});

test("rungrad agentmeta reads standard input and --from-exe", async () => {
  const expected = stableJSON(rgref.expect_agentmeta);
  const fromStdin = await rungrad(["agentmeta", "-"], { stdin: rgref.expect_manifest_stable_json });
  assert.equal(fromStdin.stdout, expected);
  const fromExe = await rungrad(["agentmeta", "--from-exe", fixture("exe/prints-manifest.mjs")]);
  assert.equal(fromExe.code, 0);
  assert.equal(fromExe.stdout, expected);
});

test("rungrad agentmeta --from-exe reports a program without an endpoint (exit 2) and a missing program (exit 1)", async () => {
  const failing = await rungrad(["agentmeta", "--from-exe", fixture("exe/fails.mjs")]);
  assert.equal(failing.code, 2);
  assert.match(failing.stderr, /^Error: .*fails\.mjs __rungrad_manifest: exit 3: Error: unknown command/);
  assert.equal(failing.stdout, "");
  const missing = await rungrad(["agentmeta", "--from-exe", "/nonexistent/tool"]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, "Error: run /nonexistent/tool: not found\n");
});

test("rungrad manifest fmt reproduces Go's endpoint bytes and drops unknown fields", async () => {
  const same = await rungrad(["manifest", "fmt", "examples/manifests/rgref.json"]);
  assert.equal(same.stdout, rgref.expect_manifest_stable_json);
  const withExtra = JSON.stringify({ extra: 1, ...JSON.parse(rgref.expect_manifest_stable_json) });
  const dropped = await rungrad(["manifest", "fmt", "-"], { stdin: withExtra });
  assert.equal(dropped.stdout, rgref.expect_manifest_stable_json);
});

test("rungrad manifest fmt and agentmeta print DEL and C1 characters as they are, off a terminal too (Go's bytes)", async () => {
  const controls = "x\u007f\u0085\u009by";
  const manifest = JSON.parse(rgref.expect_manifest_stable_json);
  manifest.commands[1].short = controls;
  const fmt = await rungrad(["manifest", "fmt", "-"], { stdin: JSON.stringify(manifest) });
  assert.equal(fmt.stdout, rgref.expect_manifest_stable_json.replace('"short": "Work with items",', `"short": "${controls}",`));
  assert.ok(fmt.stdout.includes(`"short": "${controls}",\n`));
  const doc = await rungrad(["agentmeta", "-"], { stdin: JSON.stringify(manifest) });
  const expected = structuredClone(rgref.expect_agentmeta);
  expected.commands[1].short = controls;
  assert.equal(doc.stdout, stableJSON(expected));
  assert.ok(doc.stdout.includes(`"short": "${controls}",\n`));
});

test("rungrad manifest fmt and validate read bytes as Go does: each invalid byte one U+FFFD, errors name the byte", async () => {
  const dir = tempDir("rungrad-bytes-");
  const bad = join(dir, "bad.json");
  const text = rgref.expect_manifest_stable_json.replace('"tool_name": "rgref"', '"tool_name": "t@@x"');
  const at = Buffer.from(text).indexOf("t@@x") + 1;
  const bytes = Buffer.from(text);
  bytes[at] = 0xe2; // an unfinished three-byte sequence: E2 82, then "x"
  bytes[at + 1] = 0x82;
  await writeFile(bad, bytes);
  const fmt = await rungrad(["manifest", "fmt", bad]);
  assert.equal(fmt.code, 0, fmt.stderr);
  assert.equal(fmt.stdout, text.replace("t@@x", "t\ufffd\ufffdx"));
  await writeFile(bad, Buffer.concat([Buffer.from('{"tool_name" '), Buffer.from([0xff]), Buffer.from(":1}")]));
  const invalid = await rungrad(["manifest", "validate", bad]);
  assert.equal(invalid.code, 1);
  assert.equal(invalid.stderr, "Error: invalid character '\u00ff' after object key\n");
  const fromStdin = await rungrad(["agentmeta", "-"], { stdin: "\u00a0{}" });
  assert.equal(fromStdin.stderr, "Error: invalid character '\u00c2' looking for beginning of value\n");
  const exe = join(dir, "bad-endpoint.sh");
  await writeFile(exe, `#!/bin/sh\nprintf '{"tool_name" \\377:1}'\n`, { mode: 0o755 });
  const fromExe = await rungrad(["agentmeta", "--from-exe", exe]);
  assert.deepEqual([fromExe.code, fromExe.stderr], [1, "Error: invalid character '\u00ff' after object key\n"]);
});

test("rungrad manifest fmt: a dotless or dotted i folds to no field name (Go folds s, k and their SimpleFold kin only)", async () => {
  const manifest = JSON.parse(rgref.expect_manifest_stable_json);
  const root = manifest.commands[0];
  root.local_flags = [{ name: "x", shorthand: "", usage: "", default: "", type: "bool", "requ\u0131red": true, "\u017fhorthand": "s" }];
  const fmt = await rungrad(["manifest", "fmt", "-"], { stdin: JSON.stringify(manifest).replace('"spec_version"', '"spec_vers\u0130on"') });
  assert.equal(fmt.code, 0, fmt.stderr);
  assert.ok(fmt.stdout.includes('"spec_version": "",\n'));
  assert.ok(fmt.stdout.includes('"name": "x",\n          "shorthand": "s",\n          "usage": "",\n          "default": "",\n          "type": "bool",\n          "required": false\n'), fmt.stdout);
});

test("rungrad new --help: pflag's stringArray type name and Go's usage texts", async () => {
  const r = await rungrad(["new", "--help"]);
  const lines = r.stdout.split("\n");
  const line = (flag: string) => lines.find((l) => l.startsWith(`      --${flag} `))!.replace(/(\S) {2,}/, "$1|");
  assert.equal(line("service"), "      --service stringArray|Service endpoint as name=url (repeatable; product profile)");
  assert.equal(line("example"), '      --example stringArray|Extra command example, e.g. "<tool> widget list" (repeatable; product profile)');
  assert.equal(line("product-name"), "      --product-name string|Human product name (AppConfig.Short)");
  assert.equal(line("description"), "      --description string|Product description (AppConfig.Long)");
});

test("rungrad manifest validate: exit 0 for valid documents, exit 1 and the exact message otherwise", async () => {
  for (const c of validation.cases) {
    const r = await rungrad(["manifest", "validate", "-"], { stdin: caseText(c) });
    if (c.expect_valid) {
      assert.equal(r.code, 0, c.name);
      assert.match(r.stdout, /^valid rungrad-manifest\/1: /, c.name);
    } else {
      assert.equal(r.code, 1, c.name);
      assert.equal(r.stderr, `Error: ${c.expect_error ?? c.expect_decode_error}\n`, c.name);
      assert.equal(r.stdout, "", c.name);
    }
  }
});

test("rungrad manifest validate --json: a report, or the machine error object on stderr", async () => {
  const ok = await rungrad(["manifest", "validate", "--json", "examples/manifests/rgref.json"]);
  assert.deepEqual(JSON.parse(ok.stdout), { valid: true, schema_version: "rungrad-manifest/1", tool_name: "rgref", tool_version: "v0.3.2", command_count: 8 });
  const bad = await rungrad(["manifest", "validate", "--json", "-"], { stdin: "{}" });
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, '{\n  "error": "manifest is missing schema_version",\n  "exit_code": 1\n}\n');
  const missing = await rungrad(["manifest", "validate", "--json", "no-such.json"]);
  assert.equal(missing.code, 1);
  assert.deepEqual(JSON.parse(missing.stderr), { error: "read no-such.json: no such file", exit_code: 1 });
});

test("rungrad usage errors exit 1 without a stack trace", async () => {
  const r = await rungrad(["manifest", "validate"]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, "Error: accepts 1 arg(s), received 0\n");
  const unknown = await rungrad(["frobnicate", "--json"]);
  assert.equal(unknown.code, 1);
  assert.deepEqual(JSON.parse(unknown.stderr), { error: 'unknown command "frobnicate" for "rungrad"', exit_code: 1 });
});

test("rungrad skill writes both files, keeps identical ones, refuses to overwrite a changed one without --force", async () => {
  const out = tempDir("rungrad-skill-");
  const dry = await rungrad(["skill", "examples/manifests/rgref.json", "--out", out, "--dry-run"]);
  assert.equal(dry.code, 0);
  assert.match(dry.stdout, /^DRY RUN: would write 2 files\n/);
  assert.deepEqual(await readdir(out), []);

  const first = await rungrad(["skill", "examples/manifests/rgref.json", "--out", out, "--json"]);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(JSON.parse(first.stdout), {
    dry_run: false,
    files: [
      { path: ".agents/README.md", action: "create" },
      { path: ".agents/skills/rgref/SKILL.md", action: "create" },
    ],
  });
  const skillPath = join(out, ".agents/skills/rgref/SKILL.md");
  const skill = await readFile(skillPath, "utf8");
  assert.match(skill, /^---\nname: rgref\n/);

  const again = await rungrad(["skill", "examples/manifests/rgref.json", "--out", out, "--json"]);
  assert.deepEqual(JSON.parse(again.stdout).files.map((f: { action: string }) => f.action), ["unchanged", "unchanged"]);

  await writeFile(skillPath, "my own notes\n");
  const refused = await rungrad(["skill", "examples/manifests/rgref.json", "--out", out]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^Error: refusing to overwrite .*SKILL\.md: it differs from the generated file \(use --force to replace it\)\n$/);
  assert.equal(await readFile(skillPath, "utf8"), "my own notes\n");

  const forced = await rungrad(["skill", "examples/manifests/rgref.json", "--out", out, "--force"]);
  assert.equal(forced.code, 0);
  assert.equal(await readFile(skillPath, "utf8"), skill);
});

test("rungrad describes itself: its __rungrad_manifest validates and projects", async () => {
  const manifest = await rungrad(["__rungrad_manifest"]);
  assert.equal(manifest.code, 0);
  const doc = JSON.parse(manifest.stdout);
  assert.deepEqual(
    doc.commands.map((c: { path: string[] }) => c.path.join(" ")),
    ["", "agentmeta", "manifest", "manifest fmt", "manifest validate", "new", "score", "skill"],
  );
  const validated = await rungrad(["manifest", "validate", "-"], { stdin: manifest.stdout });
  assert.equal(validated.code, 0, validated.stderr);
  const projected = await rungrad(["agentmeta", "-"], { stdin: manifest.stdout });
  assert.equal(projected.code, 0, projected.stderr);
  const skill = JSON.parse(projected.stdout).commands.find((c: { path: string[] }) => c.path.join(" ") === "skill");
  assert.equal(skill.dry_run_usage_template, "rungrad skill [file] --dry-run --json --no-prompt");
  assert.equal(skill.machine_usage_template, "");
});
