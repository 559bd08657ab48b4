// hcp's and rungrad's own global flags act where they show: --json where a command has JSON output,
// --dry-run where it changes things, --no-prompt/--quiet where there is a prompt or chatter to hold back.
// Given where it would do nothing, --json/--dry-run/--config are refused; --no-prompt/--quiet are kept as promises.

import assert from "node:assert/strict";
import { test } from "node:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { rungrad, type Run } from "./helpers.js";
import { hcp, PROBE_PACK, tempDir } from "../transports/support.js";
import { bank, jsonError, planIdOf } from "./approvals-support.js";

interface Wire {
  global_flags: { name: string }[];
  commands: { path: string[]; output_modes: string[]; supports_dry_run: boolean }[];
}

/** The names of the "Global Flags:" section of a help text. */
function shownGlobals(help: string): string[] {
  const section = /\n\nGlobal Flags:\n([\s\S]*?)(?:\n\n|$)/.exec(help)?.[1] ?? "";
  return [...section.matchAll(/--([\w-]+)/g)].map((m) => m[1]!);
}

async function manifest(program: (a: string[]) => Promise<Run>): Promise<Wire> {
  return JSON.parse((await program(["__rungrad_manifest"])).stdout) as Wire;
}

for (const [name, program] of [["hcp", hcp], ["rungrad", rungrad]] as const) {
  test(`${name}: every command shows --json only with JSON output, --dry-run only when it changes things, and never --config`, async () => {
    const m = await manifest(program);
    assert.deepEqual(m.global_flags.map((f) => f.name), ["dry-run", "json", "no-prompt", "quiet"], "no command reads a config file");
    const commands = m.commands.filter((c) => c.path.length > 0);
    const helps = await Promise.all(commands.map((c) => program([...c.path, "--help"])));
    commands.forEach((c, i) => {
      const shown = shownGlobals(helps[i]!.stdout);
      const where = `${name} ${c.path.join(" ")}`;
      assert.equal(shown.includes("json"), c.output_modes.includes("json"), where);
      assert.equal(shown.includes("dry-run"), c.supports_dry_run, where);
      assert.ok(!shown.includes("config"), where);
    });
    // A group (a command with subcommands) only prints its help.
    const leaves = commands.filter((c) => !commands.some((d) => d.path.length > c.path.length && c.path.every((w, i) => d.path[i] === w)));
    const configs = await Promise.all(leaves.map((c) => program([...c.path, "--config", "/nonexistent/garbage.yaml"])));
    configs.forEach((r, i) => {
      const path = [name, ...leaves[i]!.path].join(" ");
      assert.deepEqual([r.code, r.stdout, r.stderr], [1, "", `Error: unknown flag: --config: ${path} reads no config file ("/nonexistent/garbage.yaml" was not read)\n`], path);
    });
  });
}

test("hcp exec and serve refuse --dry-run (requests carry dry_run) and --json where output is not theirs to shape", async () => {
  const [execDry, serveDry, serveJson, listJson] = await Promise.all([
    hcp(["exec", PROBE_PACK, "--dry-run"], { stdin: '{"id": 1, "pack": "hcp-probe", "verb": "echo", "args": {}}\n' }),
    hcp(["serve", "--mcp", PROBE_PACK, "--dry-run"]),
    hcp(["serve", "--mcp", PROBE_PACK, "--json"]),
    hcp(["list", PROBE_PACK, "--json", "--no-prompt", "--quiet"]),
  ]);
  assert.deepEqual([execDry.code, execDry.stdout, execDry.stderr], [1, "", "Error: unknown flag: --dry-run\n"], "no request was served");
  assert.deepEqual([serveDry.code, serveDry.stderr], [1, "Error: unknown flag: --dry-run\n"]);
  assert.deepEqual([serveJson.code, JSON.parse(serveJson.stderr)], [1, { error: "unknown flag: --json", exit_code: 1 }], "asked for JSON, the error is JSON");
  assert.equal(listJson.code, 0, "--no-prompt and --quiet are promises a command without prompts or chatter keeps: agents' `--json --no-prompt` works");
  assert.ok(Array.isArray((JSON.parse(listJson.stdout) as { packs: unknown[] }).packs));
});

test("a person's `hcp approve ID --dry-run` is refused, not taken as an approval; --no-prompt refuses instead of asking", async () => {
  const b = bank();
  const pay = ["run", b.root, "pay", "--arg", "amount=1", "--allow-write"];
  const id = planIdOf(await b.hcp([...pay, "--dry-run", "--json"]));
  const dry = await b.onTerminal(["approve", id, "--dry-run"], "[y/N]", "y", 20);
  assert.match(dry.stdout, /Error: unknown flag: --dry-run/);
  assert.doesNotMatch(dry.stdout, /\[y\/N\]/);
  const noPrompt = await b.onTerminal(["approve", id, "--no-prompt"], "", "", 20);
  assert.match(noPrompt.stdout, /Error: hcp approve asks a person y\/N at the terminal, and --no-prompt forbids asking/);
  assert.doesNotMatch(noPrompt.stdout, /\[y\/N\]/);
  const run = await b.hcp([...pay, "--confirm", id, "--json"]);
  assert.equal(jsonError(run).code, "approval_required", "the plan is still unapproved");
  assert.equal(b.runs().length, 0);
});

test("rungrad new --quiet leaves out the next steps it would print, not its result or its errors", async () => {
  const dir = tempDir("rungrad-quiet-");
  const [loud, quiet] = await Promise.all([rungrad(["new", "loudctl", "--dir", dir]), rungrad(["new", "quietctl", "--dir", dir, "--quiet"])]);
  assert.equal(loud.code, 0, loud.stderr);
  assert.match(loud.stderr, /npm install/);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.deepEqual([quiet.stdout, quiet.stderr], [`Created ${join(dir, "quietctl")}\n`, ""]);
  assert.ok(existsSync(join(dir, "quietctl", "package.json")));
  const made = await rungrad(["new", "quietctl", "--dir", dir, "--quiet"]);
  assert.equal(made.code, 2);
  assert.match(made.stderr, /^Error: .*already exists/);
});
