import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "yaml";
import { fromManifest } from "../../src/agentmeta/index.js";
import type { AgentMetaDocument } from "../../src/agentmeta/types.js";
import { checkSkillName, renderSkill, SkillNameError, SkillRenderError, SUMMARY_MAX_LENGTH, type AgentFile } from "../../src/skill/index.js";
import { boolFlag, demoManifest, loadExample, manifestOf } from "../agentmeta/fixtures.js";

interface SkillCase {
  tool: string;
  expect_files: Record<string, string>;
}
interface ManifestCase {
  name: string;
  manifest: Record<string, unknown>;
}

const skillCase = loadExample<{ cases: SkillCase[] }>("scaffold_skill_files.json").cases.find((c) => c.tool === "acmectl")!;
const scaffoldCases = loadExample<{ cases: ManifestCase[] }>("scaffold_product_manifest.json").cases;

/** Go's files for another tool name: the scaffold output depends on the name only. */
function expectedFiles(tool: string): AgentFile[] {
  return Object.entries(skillCase.expect_files).map(([path, content]) => ({
    path: path.replaceAll("acmectl", tool),
    content: content.replaceAll("acmectl", tool),
  }));
}

/** A scaffold-time manifest for another tool name (tool, root use, examples, related, namespace). */
function scaffoldDoc(c: ManifestCase, tool = "acmectl"): AgentMetaDocument {
  return fromManifest(manifestOf(JSON.parse(JSON.stringify(c.manifest).replaceAll("acmectl", tool))));
}

const skillOf = (files: AgentFile[]): string => files[1]!.content;

for (const c of scaffoldCases) {
  test(`scaffold ${c.name}: README and SKILL.md are Go's bytes`, () => {
    const files = renderSkill(scaffoldDoc(c));
    assert.deepEqual(files, expectedFiles("acmectl"));
    assert.deepEqual(
      files.map((f) => f.path),
      [".agents/README.md", ".agents/skills/acmectl/SKILL.md"],
    );
  });
}

test("scaffold output is Go's bytes for other valid tool names", () => {
  for (const tool of ["a", "demo", "prodtool", "explicitctl", "x9", "acme-ctl-2", "y", "on", "nan", "a".repeat(64)]) {
    for (const c of scaffoldCases) assert.deepEqual(renderSkill(scaffoldDoc(c, tool)), expectedFiles(tool), tool);
  }
});

test("property: every Agent Skills name that Go's scaffold accepts renders Go's bytes", () => {
  const name = fc
    .stringMatching(/^[a-z](?:-?[a-z0-9])*$/)
    .filter((n) => n.length <= 64 && !["null", "true", "false"].includes(n));
  fc.assert(
    fc.property(name, (tool) => {
      assert.deepEqual(renderSkill(scaffoldDoc(scaffoldCases[0]!, tool)), expectedFiles(tool));
    }),
    { numRuns: 150 },
  );
});

test("frontmatter is YAML whose name is the tool and the skill directory, even for YAML keywords", () => {
  for (const tool of ["acmectl", "null", "true", "false", "123", "1e3"]) {
    const [, skill] = renderSkill(fromManifest(demoManifest([], tool)));
    const match = /^---\n([\s\S]*?)---\n/.exec(skill!.content);
    assert.ok(match, "frontmatter block");
    const meta = parse(match[1]!) as { name: unknown; description: string };
    assert.equal(meta.name, tool);
    assert.equal(skill!.path, `.agents/skills/${tool}/SKILL.md`);
    assert.ok(meta.description.length <= 1024);
  }
  // Go writes `name: null` (a YAML null); this renderer quotes it so the name stays a string.
  assert.match(renderSkill(fromManifest(demoManifest([], "null")))[1]!.content, /^---\nname: "null"\n/);
});

test("hostile product text never reaches the files", () => {
  const secrets = ["ghp_SECRETTOKEN", "https://evil.invalid/x", "`rm -rf /`", "[click](http://x)", "Acme Product", "/home/u/.config/acme"];
  const hostileShort = "<script>alert(1)</script>\n| injected | row |\r\n# heading";
  const wire = structuredClone(scaffoldCases[0]!.manifest) as { tool_version: string; global_flags: Record<string, unknown>[]; commands: Record<string, unknown>[] };
  let i = 0;
  const next = () => secrets[i++ % secrets.length]!;
  wire.tool_version = next();
  for (const f of wire.global_flags) {
    f["usage"] = next();
    if (f["type"] === "string") f["default"] = next();
  }
  for (const c of wire.commands) {
    c["short"] = hostileShort;
    c["examples"] = [next(), next()];
    c["related"] = [next()];
    c["extensions"] = { "evil.invalid/ns": { token: next(), url: next(), nested: { deep: [next()] } } };
    for (const f of c["local_flags"] as Record<string, unknown>[]) f["usage"] = next();
  }
  const doc = fromManifest(manifestOf(wire));
  const files = renderSkill(doc);
  assert.deepEqual(files, expectedFiles("acmectl"), "the files depend on the allowlist only");
  for (const f of [...files, ...renderSkill(doc, { includeShort: true })]) {
    for (const s of [...secrets, "evil", "SECRET", "<script>"]) assert.ok(!f.content.includes(s), `${f.path} leaks ${s}`);
  }
  const row = skillOf(renderSkill(doc, { includeShort: true }))
    .split("\n")
    .find((l) => l.startsWith("| `acmectl widget list`"));
  assert.equal(row, "| `acmectl widget list` | \\<script\\>alert(1)\\</script\\> \\| injected \\| row \\| # heading | Read-only. Prefer `acmectl widget list --json --no-prompt` for parseable output. |");
});

test("includeShort adds a Summary column of sanitised one-line plain text", () => {
  const doc = fromManifest(
    demoManifest([
      { path: ["a"], use: "a", short: "List <b>items</b> | fast\r\n  with `code`, *stars* & [links](http://x)\u202e\u0000 $x$" },
      { path: ["b"], use: "b", short: "x".repeat(500) },
      { path: ["c"], use: "c", short: " \t\n " },
    ]),
  );
  const skill = skillOf(renderSkill(doc, { includeShort: true }));
  assert.ok(skill.includes("| Command | Summary | Policy |\n| --- | --- | --- |\n"));
  const row = (cmd: string) => skill.split("\n").find((l) => l.startsWith(`| \`demo ${cmd}\``))!;
  assert.equal(
    row("a"),
    "| `demo a` | List \\<b\\>items\\</b\\> \\| fast with \\`code\\`, \\*stars\\* \\& \\[links\\](http://x) \\$x\\$ | Read-only. |",
  );
  assert.equal(row("b"), `| \`demo b\` | ${"x".repeat(SUMMARY_MAX_LENGTH - 3)}... | Read-only. |`);
  assert.equal(row("c"), "| `demo c` |  | Read-only. |");
  assert.ok(!skillOf(renderSkill(doc)).includes("List"), "short text is opt-in");
});

test("a generic manifest: every runnable command is classified, groups are not rows", () => {
  const ex = loadExample<{ manifest: unknown }>("rgref_reference.json");
  const skill = skillOf(renderSkill(fromManifest(manifestOf(ex.manifest))));
  const table = skill.slice(skill.indexOf("| Command |"), skill.indexOf("<!-- rungrad:command-reference:end"));
  assert.equal(
    table,
    [
      "| Command | Policy |",
      "| --- | --- |",
      "| `rgref item get <name>` | Read-only. Prefer `rgref item get <name> --json --no-prompt` for parseable output. |",
      "| `rgref item list` | Read-only. Prefer `rgref item list --json --no-prompt` for parseable output. |",
      "| `rgref whoami` | Read-only. Prefer `rgref whoami --json --no-prompt` for parseable output. |",
      "| `rgref update --check` | Read-only scaffold update check. Prefer `rgref update --check --json --no-prompt`. |",
      "| `rgref item create <name>` | Mutating. Run `rgref item create <name> --dry-run --json --no-prompt` first and review the preview before real execution. |",
      "| `rgref update` | Mutating install path. Prefer `rgref update --check --json --no-prompt` unless the user asks to install; then run `rgref update --dry-run --json --no-prompt` first. |",
      "| `rgref item delete <name>` | Destructive. Run `rgref item delete <name> --dry-run --json --no-prompt` first, require explicit user confirmation before real execution, and use `--confirm` only after that confirmation. |",
      "",
    ].join("\n"),
  );
});

test("without an update --check command or --confirm flags the prose does not mention them", () => {
  const ex = loadExample<{ manifest: unknown }>("rungrad_cli.json");
  const skill = skillOf(renderSkill(fromManifest(manifestOf(ex.manifest))));
  assert.ok(!skill.includes("update --check"));
  assert.ok(!skill.includes("--confirm"));
  assert.ok(skill.includes("| `rungrad score <target>` | Read-only. Prefer `rungrad score <target> --json --no-prompt` for parseable output. |\n"));
  assert.ok(skill.includes("| `rungrad new <name>` | Mutating. Run `rungrad new <name> --dry-run --json --no-prompt` first"));
  assert.ok(skill.includes("Require explicit user intent before destructive commands.\n\nAvoid printing"));
});

test("without canonical --json, --no-prompt and --dry-run the files never tell agents to use them", () => {
  const m = demoManifest([
    { path: ["get"], use: "get <id>", output_modes: ["json"] },
    { path: ["set"], use: "set <id>", output_modes: ["json"], mutates: true, supports_dry_run: true },
    { path: ["rm"], use: "rm <id>", mutates: true, destructive: true, requires_confirmation: true },
    { path: ["update"], use: "update", mutates: true, local_flags: [boolFlag("check")] },
  ]);
  m.global_flags = [{ name: "json", shorthand: "", usage: "", default: "true", type: "bool", required: false }];
  const skill = skillOf(renderSkill(fromManifest(m)));
  for (const flag of ["--json", "--no-prompt", "--dry-run"]) {
    for (const line of skill.split("\n").filter((l) => l.includes(flag))) {
      assert.match(line, new RegExp(`No canonical \`${flag}\` flag is declared`), line);
    }
  }
  assert.ok(skill.includes("description: Use when operating the demo CLI through help; do not use"));
  assert.ok(skill.includes("operating the `demo` CLI from this repository through command help.\n"));
  assert.ok(skill.includes("| `demo get <id>` | Read-only. |\n"));
  assert.ok(skill.includes("| `demo set <id>` | Mutating. No dry-run preview is generated; require explicit user confirmation before real execution. |\n"));
  assert.ok(skill.includes("| `demo update --check` | Read-only scaffold update check. Prefer `demo update --check`. |\n"));
  assert.ok(skill.includes("| `demo update` | Mutating install path. Prefer `demo update --check` unless the user asks to install; then require explicit user confirmation before real execution. |\n"));
  assert.ok(
    skill.includes("| `demo rm <id>` | Destructive. No dry-run preview is generated; require explicit user confirmation before real execution, and inspect product documentation for the confirmation mechanism. |\n"),
  );
});

test("a root without children is a row; a root with children is not", () => {
  assert.ok(skillOf(renderSkill(fromManifest(demoManifest([])))).includes("| --- | --- |\n| `demo` | Read-only. |\n<!--"));
  assert.ok(!skillOf(renderSkill(fromManifest(demoManifest([{ path: ["a"], use: "a" }])))).includes("| `demo` |"));
});

test("command text that could break Markdown is rejected; pipes are escaped", () => {
  const unsafe = ["a`b", "a\\b", "a\u0007", "a\u202eb", "a\u200bb", "a\u2028b", "\ue000"];
  for (const seg of unsafe) {
    const doc = fromManifest(demoManifest([{ path: ["a"], use: "a" }]));
    doc.commands[1]!.usage_template = `demo ${seg}`;
    assert.throws(() => renderSkill(doc), SkillRenderError, JSON.stringify(seg));
  }
  assert.throws(() => renderSkill(fromManifest(demoManifest([{ path: ["a`b"], use: "a`b" }]))), SkillRenderError);
  assert.throws(() => renderSkill(fromManifest(demoManifest([{ path: ["a"], use: "a <x`y>" }]))), SkillRenderError);
  const piped = skillOf(renderSkill(fromManifest(demoManifest([{ path: ["shell"], use: "shell [bash|zsh] <a&b>" }]))));
  assert.ok(piped.includes("| `demo shell [bash\\|zsh] <a&b>` | Read-only. |\n"));
  // A hand-built document is checked too, templates included.
  const doc = fromManifest(demoManifest([{ path: ["r"], use: "r", output_modes: ["json"] }]));
  doc.commands[1]!.machine_usage_template = "demo r\n--json";
  assert.throws(() => renderSkill(doc), { name: "SkillRenderError", message: 'skill: machine usage template "demo r\\n--json" cannot be rendered safely in SKILL.md' });
});

test("checkSkillName enforces the Agent Skills name rules with a typed error naming the rule", () => {
  for (const ok of ["a", "acmectl", "9lives", "a-b-c", "x".repeat(64)]) checkSkillName(ok);
  const cases: [string, string, string][] = [
    ["", "length", 'skill name "" must be 1 to 64 characters long'],
    ["x".repeat(65), "length", `skill name "${"x".repeat(65)}" must be 1 to 64 characters long`],
    ["Acme", "charset", 'skill name "Acme" must contain only lowercase letters, digits, and hyphens'],
    ["acme_ctl", "charset", 'skill name "acme_ctl" must contain only lowercase letters, digits, and hyphens'],
    ["a\nb", "charset", 'skill name "a\\nb" must contain only lowercase letters, digits, and hyphens'],
    ["-acme", "edge-hyphen", 'skill name "-acme" must not start or end with a hyphen'],
    ["acme-", "edge-hyphen", 'skill name "acme-" must not start or end with a hyphen'],
    ["ac--me", "consecutive-hyphens", 'skill name "ac--me" must not contain consecutive hyphens'],
  ];
  for (const [name, rule, message] of cases) {
    assert.throws(
      () => checkSkillName(name),
      (err: unknown) => err instanceof SkillNameError && err.rule === rule && err.message === message && err.skillName === name,
    );
  }
  assert.throws(() => renderSkill(fromManifest(demoManifest([], "acme-"))), SkillNameError);
});

test("files are normalised like Go's and rendering is deterministic", () => {
  const doc = scaffoldDoc(scaffoldCases[1]!);
  const a = renderSkill(doc, { includeShort: true });
  assert.deepEqual(renderSkill(doc, { includeShort: true }), a);
  for (const f of a) {
    assert.ok(f.content.endsWith("\n") && !f.content.endsWith("\n\n"));
    assert.ok(!f.content.includes("\r"));
    assert.match(f.content, /^[\x20-\x7e\n]*$/, "pure ASCII");
  }
});
