// The generated test/main.test.ts: runs the built CLI as a real process and checks the behaviour its users rely on.

import type { ScaffoldSettings } from "../options.js";
import type { ProgramDecl } from "../program.js";
import { literal, str } from "./literal.js";

export function testSource(s: ScaffoldSettings, p: ProgramDecl): string {
  const primary = s.services[0];
  const base = primary ? primary.default : "";
  const updateExamples = [`${s.name} update --check`, `${s.name} update --check --json`, `${s.name} update`, ...p.updateExamples];
  const product = !s.product
    ? ""
    : `
test("widget list carries the product metadata extension", async () => {
  const list = (await manifest()).commands.find((c) => c.path.join(" ") === "widget list");
  assert.deepEqual(list?.extensions, { [${str(s.namespace)}]: { owner: "platform", status: "stable" } });
});

test("the global flags include resolution and every service flag", async () => {
  const names = (await manifest()).global_flags.map((f) => f.name);
  for (const want of ${literal(["json", "dry-run", "no-prompt", "config", "profile", "auth-file", ...s.services.map((v) => v.flag)], "  ")}) {
    assert.ok(names.includes(want), want);
  }
});
`;
  return `// Tests of the built ${s.name} CLI: real processes, exit codes and stable JSON (run \`npm run build\` first).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../src/main.js", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with stdin closed, so nothing can prompt. */
function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [MAIN, ...args], (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

interface Command {
  path: string[];
  examples: string[];
  related: string[];
  output_modes: string[];
  mutates: boolean;
  supports_dry_run: boolean;
  destructive: boolean;
  requires_confirmation: boolean;
  local_flags: { name: string; type: string; default: string; required: boolean }[];
  extensions?: Record<string, unknown>;
}

async function manifest(): Promise<{ tool_name: string; global_flags: { name: string }[]; commands: Command[] }> {
  const r = await cli("__rungrad_manifest");
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const find = (commands: Command[], path: string) => commands.find((c) => c.path.join(" ") === path);

test("widget list --json prints stable JSON", async () => {
  const r = await cli("widget", "list", "--json");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, JSON.stringify([{ id: "1", name: "alpha" }, { id: "2", name: "beta" }], null, 2) + "\\n");
});

test("widget create --dry-run previews the request and masks the secret", async () => {
  const r = await cli("widget", "create", "gamma", "--dry-run");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stdout.includes("scaffold-secret"), r.stdout);
  assert.ok(r.stdout.includes("token = ***"), r.stdout);
  assert.ok(r.stdout.startsWith(${str(`DRY RUN: would POST ${base}/widgets`)}), r.stdout);
});

test("widget delete --dry-run is a preview, not a deletion", async () => {
  const r = await cli("widget", "delete", "alpha", "--dry-run");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.startsWith(${str(`DRY RUN: would DELETE ${base}/widgets/alpha`)}), r.stdout);
});

test("widget delete without --confirm refuses non-interactively (exit 1)", async () => {
  const r = await cli("widget", "delete", "alpha", "--no-prompt");
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  const j = await cli("widget", "delete", "alpha", "--json");
  assert.equal(j.code, 1);
  assert.equal(j.stdout, "");
  assert.equal(JSON.parse(j.stderr).exit_code, 1);
});

test("widget delete --confirm reports the deletion and keeps the fixture", async () => {
  const r = await cli("widget", "delete", "alpha", "--confirm");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Deleted widget alpha\\n");
  assert.ok((await cli("widget", "list", "--json")).stdout.includes("alpha"));
});

test("update --check --json is offline and up to date", async () => {
  const r = await cli("update", "--check", "--json");
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal(result.current, "v0.1.0");
  assert.equal(result.available, false);
  assert.equal(result.status, "up_to_date");
});

test("the manifest declares the generated commands", async () => {
  const m = await manifest();
  assert.equal(m.tool_name, ${str(s.name)});
  assert.deepEqual(find(m.commands, "")?.examples, ${literal(p.app.examples ?? [], "  ")});
  assert.deepEqual(find(m.commands, "")?.related, []);
  assert.deepEqual(find(m.commands, "update")?.examples, ${literal(updateExamples, "  ")});
  const list = find(m.commands, "widget list");
  assert.ok(list && !list.mutates && list.output_modes.includes("json"));
  const create = find(m.commands, "widget create");
  assert.ok(create && create.mutates && create.supports_dry_run && !create.destructive);
  const del = find(m.commands, "widget delete");
  assert.ok(del && del.destructive && del.requires_confirmation);
  assert.deepEqual(del.local_flags.find((f) => f.name === "confirm"), {
    name: "confirm", shorthand: "", usage: "Confirm the destructive action without a prompt", default: "false", type: "bool", required: false,
  });
});
${product}`;
}
