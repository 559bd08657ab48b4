// End-to-end: spawn the built examples/rgref/rgref with real pipes and check the §d ruleset probes.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadExample } from "../agentmeta/fixtures.js";
import { GO_TEMPLATE_USAGE, TS_TEMPLATE_USAGE } from "../framework/helpers.js";
import { tempDir } from "../temp.js";
import { REPO, run, type Run } from "./helpers.js";

const RGREF = `${REPO}examples/rgref/rgref`;
const REFERENCE = loadExample<{ expect_manifest_stable_json: string }>("rgref_reference.json");
const CONF_HOME = tempDir("rgref-e2e-");
const SECRET = "SENTINEL-SECRET-do-not-print-7Q2";

/** Runs rgref with the conformance runner's environment; stdin is a pipe that is closed unless `hold` keeps it open. */
function rgref(args: string[], opts: { env?: Record<string, string>; hold?: boolean; timeoutMs?: number } = {}): Promise<Run> {
  const env = { PATH: process.env["PATH"] ?? "", HOME: CONF_HOME, XDG_CONFIG_HOME: CONF_HOME, TMPDIR: tmpdir(), ...opts.env };
  return run(RGREF, args, { env, hold: opts.hold, timeoutMs: opts.timeoutMs ?? 10_000 });
}

const hash = () => createHash("sha256").update(readFileSync(RGREF)).digest("hex");

const dryRunText = (s: string) => {
  const l = s.toLowerCase();
  return !["created ", "updated ", "deleted ", "removed ", "successfully"].some((w) => l.includes(w)) && (l.includes("dry") || l.includes("no change") || l.includes("would "));
};

test("manifest endpoint bytes equal the reference (the --template usage aside)", async () => {
  const r = await rgref(["__rungrad_manifest"]);
  assert.equal(r.code, 0);
  const want = REFERENCE.expect_manifest_stable_json.replace(GO_TEMPLATE_USAGE, TS_TEMPLATE_USAGE);
  assert.equal(r.stdout, want);
});

test("output: read command exits 0, human and JSON forms, JSON parses, deterministic", async () => {
  const [human, human2, json, json2] = await Promise.all([rgref(["item", "list"]), rgref(["item", "list"]), rgref(["item", "list", "--json"]), rgref(["item", "list", "--json"])]);
  for (const r of [human, human2, json, json2]) assert.equal(r.code, 0);
  assert.equal(human.stdout, "ID  Name\n1   alpha\n2   dup\n3   dup\n");
  assert.equal(human.stdout, human2.stdout);
  assert.equal(json.stdout, json2.stdout);
  assert.equal(JSON.parse(json.stdout).length, 3);
});

test("exit codes 1-6", async () => {
  const cases: [string[], number][] = [
    [["this-subcommand-does-not-exist"], 1],
    [["item", "list", "--no-such-flag"], 1],
    [["item", "get", "broken"], 2],
    [["whoami"], 3],
    [["item", "get", "forbidden"], 4],
    [["item", "get", "ghost"], 5],
    [["item", "get", "throttled"], 6],
  ];
  const runs = await Promise.all(cases.map(([a]) => rgref(a)));
  runs.forEach((r, i) => {
    assert.equal(r.code, cases[i]![1], cases[i]![0].join(" "));
    assert.match(r.stderr, /^Error: /);
    assert.equal(r.stdout, "");
  });
});

test("dry-run: create and destructive delete preview without side effects", async () => {
  const create = await rgref(["item", "create", "gamma", "--dry-run"]);
  assert.equal(create.code, 0);
  assert.equal(create.stdout, "DRY RUN: would POST /items\n  body:\n    name = gamma\n    token = ***\n  no changes were made\n");
  assert.ok(dryRunText(create.stdout));
  const del = await rgref(["item", "delete", "alpha", "--dry-run", "--no-prompt"]);
  assert.equal(del.code, 0);
  assert.equal(del.stdout, "DRY RUN: would DELETE /items/1\n  no changes were made\n");
  const json = await rgref(["item", "create", "gamma", "--dry-run", "--json"]);
  assert.equal(json.stdout, '{\n  "dry_run": true,\n  "method": "POST",\n  "path": "/items",\n  "body": {\n    "name": "gamma",\n    "token": "***"\n  }\n}\n');
});

test("destructive action refuses without --confirm on a held-open pipe (plain, --no-prompt, --json)", async () => {
  const variants = [[], ["--no-prompt"], ["--json"]];
  const runs = await Promise.all(variants.map((v) => rgref(["item", "delete", "alpha", ...v], { hold: true, timeoutMs: 5000 })));
  for (const r of runs) {
    assert.equal(r.timedOut, false);
    assert.equal(r.code, 1);
  }
  assert.equal(runs[0]!.stderr, "Error: destructive action requires --confirm\n");
  assert.deepEqual(JSON.parse(runs[2]!.stderr), { error: "destructive action requires --confirm", exit_code: 1 });
});

test("ambiguous name with --no-prompt lists candidates, exit 1", async () => {
  const r = await rgref(["item", "get", "dup", "--no-prompt"]);
  assert.equal(r.code, 1);
  assert.ok((r.stdout + r.stderr).toLowerCase().includes("candidate"));
  const j = await rgref(["item", "get", "dup", "--json"]);
  assert.deepEqual(JSON.parse(j.stderr).candidates, [{ id: "2", name: "dup" }, { id: "3", name: "dup" }]);
});

test("help has examples and related commands", async () => {
  const r = await rgref(["item", "list", "--help"]);
  assert.equal(r.code, 0);
  assert.ok(r.stdout.includes("Examples:\nrgref item list\n"));
  assert.ok(r.stdout.includes("Related commands:\n  rgref item get\n  rgref item create"));
  assert.ok(r.stdout.includes("Output modes:\n  human, json, plain, jq, template"));
});

test("update --check is read-only and --json parses", async () => {
  const before = hash();
  const r = await rgref(["update", "--check"]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, "current v0.3.2, latest v0.3.2: up_to_date\n");
  assert.equal(hash(), before);
  const j = await rgref(["update", "--check", "--json"]);
  assert.deepEqual(JSON.parse(j.stdout), { current: "v0.3.2", latest: "v0.3.2", available: false, status: "up_to_date" });
});

test("the secret is never printed, plain or --json", async () => {
  const env = { RGREF_TOKEN: SECRET };
  for (const args of [["whoami"], ["whoami", "--json"]]) {
    const r = await rgref(args, { env });
    assert.equal(r.code, 0);
    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET));
  }
});

test("--config overrides the config path", async () => {
  const r = await rgref(["item", "list", "--config", join(CONF_HOME, "alt-config.yaml")]);
  assert.equal(r.code, 0);
});

test("unknown flag in machine mode: JSON error body, exit 1; --json=false stays human", async () => {
  const r = await rgref(["item", "list", "--bogus", "--json"]);
  assert.equal(r.code, 1);
  assert.deepEqual(JSON.parse(r.stderr), { error: "unknown flag: --bogus", exit_code: 1 });
  const h = await rgref(["item", "list", "--json=false", "--bogus"]);
  assert.equal(h.stderr, "Error: unknown flag: --bogus\n");
  // After `--`, --json is an operand, not machine mode, and no word there names a command: Cobra shows the root's help.
  const [v, help] = await Promise.all([rgref(["--", "--json", "nope"]), rgref(["--help"])]);
  assert.deepEqual([v.code, v.stdout, v.stderr], [0, help.stdout, ""]);
});

test("help with an unknown topic: Cobra's line, then the root's usage without long text, -h or -v (Go's bytes)", async () => {
  const golden = loadExample<{ files: Record<string, string> }>("rgref_help_golden.json").files["rgref.txt"]!;
  const usage = golden
    .slice(golden.indexOf("Usage:"))
    .replace("  -h, --help               help for rgref\n", "")
    .replace("  -v, --version            version for rgref\n", "")
    .replace(GO_TEMPLATE_USAGE, TS_TEMPLATE_USAGE);
  const r = await rgref(["help", "bogus", "more"]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, "Unknown help topic [`bogus` `more`]\n" + usage);
  assert.ok(!r.stdout.includes("worked example") && !r.stdout.includes("--help "));
  const quoted = await rgref(["help", "a`b", "tab\there"]);
  assert.ok(quoted.stdout.startsWith('Unknown help topic ["a`b" `tab\there`]\nUsage:\n'), quoted.stdout);
  // Cobra's Find stops at the deepest command the words name; the rest are ignored.
  const deeper = await rgref(["help", "item", "bogus"]);
  assert.equal(deeper.stdout, (await rgref(["item", "--help"])).stdout);
  // Find reaches hidden commands and help itself, with Cobra's texts.
  const endpoint = await rgref(["help", "__rungrad_manifest"]);
  assert.ok(endpoint.stdout.startsWith("Emit the rungrad machine manifest (internal)\n\nUsage:\n  rgref __rungrad_manifest [flags]\n\nFlags:\n  -h, --help   help for __rungrad_manifest\n"));
  const help = await rgref(["help", "help"]);
  assert.ok(help.stdout.startsWith("Help provides help for any command in the application.\nSimply type rgref help [path to command] for full details.\n\nUsage:\n  rgref help [command] [flags]\n"));
});
