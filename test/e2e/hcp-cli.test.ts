// The `hcp` program end to end: run (output, exit codes, dry run, pass-through), validate, meta, skill, list, init, its framework surface.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { trustApprovers } from "./approvals-support.js";
import { REPO, fixture, rungrad, trustPack } from "./helpers.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { PROBE_PACK, hcp, pack, tempDir } from "../transports/support.js";

const LEDGER = fixture("examples/hcp/ledger");

test("run: the child's output and exit code, 124 on timeout, usage and policy errors as `Error:` lines", async () => {
  const [echo, fail, slow, denied, usage, badJson, refused] = await Promise.all([
    hcp(["run", PROBE_PACK, "echo", "--arg", "message=a b", "--arg", "count:=3"]),
    hcp(["run", PROBE_PACK, "fail"]),
    hcp(["run", PROBE_PACK, "slow"]),
    hcp(["run", PROBE_PACK, "hidden"]),
    hcp(["run", PROBE_PACK]),
    hcp(["run", PROBE_PACK, "echo", "--args", "{"]),
    hcp(["run", PROBE_PACK, "write"]),
  ]);
  assert.equal(echo.code, 0);
  assert.deepEqual((JSON.parse(echo.stdout) as { argv: string[] }).argv, ["echo", "a b", "--count=3"]);
  assert.deepEqual([fail.code, fail.stdout], [3, "failing\n"]);
  assert.equal(slow.code, 124);
  assert.match(slow.stderr, /^Error: verb "slow" timed out \(killed by SIGTERM\)$/m);
  assert.deepEqual([denied.code, denied.stderr], [4, 'Error: verb "hidden" of pack "hcp-probe" is denied by policy\n']);
  assert.equal(usage.code, 1);
  assert.match(usage.stderr, /^Error: a VERB/);
  assert.equal(badJson.code, 1);
  assert.match(badJson.stderr, /^Error: --args is not valid JSON/);
  assert.equal(refused.code, 4);
  assert.match(refused.stderr, /--allow-write/);
});

test("run: a program that ends itself on SIGTERM at its timeout timed out and exited with its own code (124), not killed by SIGKILL as was said", async () => {
  const root = probePack("serverish", { serve: { description: "Serve until stopped.", cli: ["probe", "run", "term-exit:0", "sleep:10000"], policy: "read" } }, {}, { verbs: { serve: { policy: "read", timeout_ms: 300 } } });
  const env = isolatedEnv();
  await trustPack(root, env);
  const r = await hcp(["run", root, "serve"], { env });
  assert.equal(r.code, 124, r.stderr);
  assert.match(r.stderr, /^Error: verb "serve" timed out \(sent SIGTERM, it exited with code 0\)$/m);
});

test("run: --arg NAME=VALUE given for a number is refused saying how to give it as JSON (:=); given as JSON, no such hint", async () => {
  const [typed, json] = await Promise.all([
    hcp(["run", PROBE_PACK, "echo", "--arg", "message=hi", "--arg", "count=3"]),
    hcp(["run", PROBE_PACK, "echo", "--arg", "message=hi", "--arg", "count:=1.5"]),
  ]);
  assert.equal(typed.code, 1);
  assert.equal(typed.stderr, 'Error: invalid arguments for verb "echo": argument "count": must be integer (--arg count=… passes a string: give the integer as JSON, --arg count:=…)\n');
  assert.equal(json.code, 1);
  assert.equal(json.stderr, 'Error: invalid arguments for verb "echo": argument "count": must be integer\n');
});

test("run: a dry run prints the plan; the agent's own --confirm is not a person's approval; a listed --approver runs it; pass-through after --", async () => {
  const args = ["run", PROBE_PACK, "transfer", "--arg", "amount=3", "--arg", "payee=eve", "--allow-write"];
  const trusted = { env: { ...process.env, XDG_CONFIG_HOME: trustApprovers(tempDir(), ["true"]) } };
  const dry = await hcp([...args, "--dry-run"]);
  assert.equal(dry.code, 0);
  const planId = /plan_id: (hcp1\.\S+)/.exec(dry.stdout)![1]!;
  assert.match(dry.stdout, /^DRY RUN: would run verb "transfer" of pack "hcp-probe":\n/);
  assert.match(dry.stdout, new RegExp(`a person approves it in a terminal with: hcp approve ${planId.replaceAll(".", "\\.")}`));
  const dryJson = JSON.parse((await hcp([...args, "--dry-run", "--json"])).stdout) as { plan_id: string; plan: { argv: string[] } };
  assert.equal(dryJson.plan_id, planId, "the same plan asked for again while its id waits keeps that id");
  const noPrompt = await hcp([...args, "--no-prompt"]);
  assert.equal(noPrompt.code, 4);
  const selfConfirmed = await hcp([...args, "--confirm", planId]);
  assert.equal(selfConfirmed.code, 4);
  assert.match(selfConfirmed.stderr, new RegExp(`needs a person's approval.*hcp approve ${planId.replaceAll(".", "\\.")}`));
  const done = await hcp([...args, "--approver", "true"], trusted);
  assert.equal(done.code, 0, done.stderr);
  assert.deepEqual((JSON.parse(done.stdout) as { argv: string[] }).argv, ["transfer", "3", "--to=eve"]);

  const pt = await hcp(["run", PROBE_PACK, "--", "run", "print:passed", "exit:5"]);
  assert.deepEqual([pt.code, pt.stdout], [5, "passed\n"]);
  const notAllowed = await hcp(["run", PROBE_PACK, "--json", "--", "echo", "x"]);
  assert.equal(notAllowed.code, 1);
  assert.match(notAllowed.stderr, /"code": "subcommand_not_allowed"/);
});

test("run PACK VERB --help (or -h, anywhere after the verb) shows the verb as hcp describe does and how hcp run takes its arguments, and runs nothing; without a verb, hcp run's own help; an unknown verb is named (exit 5); after --, --help is the program's", async () => {
  const [help, short, describe, own, bare, unknown, passed] = await Promise.all([
    hcp(["run", PROBE_PACK, "echo", "--help"]),
    hcp(["run", PROBE_PACK, "echo", "--arg", "message=hi", "-h", "--arg", "count:=1"]),
    hcp(["describe", PROBE_PACK, "echo"]),
    hcp(["run", PROBE_PACK, "--help"]),
    hcp(["run", "--help"]),
    hcp(["run", PROBE_PACK, "ech", "--help"]),
    hcp(["run", PROBE_PACK, "--", "run", "json", "--help"]),
  ]);
  assert.deepEqual([help.code, help.stderr], [0, ""]);
  assert.match(describe.stdout, /^echo \(read\); MCP tool hcp-probe_echo\n {2}Print the arguments it was given as JSON\.$/m);
  assert.ok(help.stdout.startsWith(describe.stdout), help.stdout);
  assert.equal(
    help.stdout.slice(describe.stdout.length),
    `\nUsage:\n  hcp run ${PROBE_PACK} echo --arg message=VALUE [--arg NAME=VALUE | --arg NAME:=JSON]… [flags]\n\nhcp run --help shows hcp run's own flags (--allow-write, --dry-run, --confirm, --json…).\n`,
  );
  assert.deepEqual([short.code, short.stdout], [0, help.stdout], "nothing ran: the probe would have printed its argv");
  assert.deepEqual([own.code, own.stdout], [0, bare.stdout]);
  assert.match(own.stdout, /^Run one verb of a pack .*\n\nA verb's arguments are given by name, --arg NAME=VALUE \(hcp run PACK VERB --help lists them\)\.$/m);
  assert.deepEqual([unknown.code, unknown.stdout], [5, ""]);
  assert.match(unknown.stderr, /^Error: pack "hcp-probe" has no verb "ech" \(/);
  assert.deepEqual((JSON.parse(passed.stdout.split("\n")[0]!) as { argv: string[] }).argv, ["run", "json", "--help"]);
});

test("validate: the ledger example has no error; invalid packs exit 1 with one line per issue; --json", async () => {
  const ok = await hcp(["validate", LEDGER], { cwd: REPO });
  assert.equal(ok.code, 0, ok.stdout);
  assert.match(ok.stdout, /1 pack: 1 valid, 0 invalid; 0 errors, 2 warnings\n$/);

  const bad = await hcp(["validate", pack("hcp-invalid"), PROBE_PACK], { cwd: REPO });
  assert.equal(bad.code, 1);
  assert.equal(
    bad.stdout,
    [
      'error: test/fixtures/packs/hcp-invalid/surface.json: binding.colour: binding: unknown field "colour" in binding',
      "error: test/fixtures/packs/hcp-invalid/surface.json: binding.mode: binding: control plane packs default Binding mothership",
      "error: test/fixtures/packs/hcp-invalid/surface.json: wrap.bin: binding: wrap adapter requires wrap.bin",
      "error: test/fixtures/packs/hcp-invalid/surface.json: verbs: wrap: wrap requires named commands or pass_through",
      "2 packs: 1 valid, 1 invalid; 4 errors, 0 warnings",
      "",
    ].join("\n"),
  );
  const invalidJson = await hcp(["validate", "--json", pack("hcp-invalid"), LEDGER], { cwd: REPO });
  assert.equal(invalidJson.code, 1, "--json keeps the exit code");
  const json = JSON.parse(invalidJson.stdout) as {
    packs: { path: string; ok: boolean; pack_id: string | null; issues: { code: string }[]; meta: { pack_id: string } | null }[];
  };
  assert.deepEqual(
    json.packs.map((p) => [p.path, p.ok, p.pack_id, p.meta?.pack_id ?? null]),
    [
      ["test/fixtures/packs/hcp-invalid", false, null, null],
      ["test/fixtures/examples/hcp/ledger", true, "ledger", "ledger"],
    ],
  );
  assert.equal(json.packs[0]!.issues.length, 4);
  const missing = await hcp(["validate", "/nonexistent/pack"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /^error: \/nonexistent\/pack\/surface\.json: io: cannot read surface\.json: no such file$/m);
});

test("meta, skill and list", async () => {
  const meta = await hcp(["meta", LEDGER]);
  assert.equal(meta.code, 0);
  assert.deepEqual(JSON.parse(meta.stdout), {
    hcp: 1,
    pack_id: "ledger",
    adapter_kind: "wrap",
    binding: { mode: "local", hub: "local-credential", family: "ledger" },
    wrap: { bin: "../../bins/ledger.mjs", argv_template: ["{{verb}}"] },
    plane: "runtime",
    transports: ["cli", "json_exec"],
  });
  assert.match(meta.stdout, /^\{\n  "hcp": 1,\n  "pack_id": "ledger",\n  "adapter_kind": "wrap",/);
  const invalidMeta = await hcp(["meta", pack("hcp-invalid")]);
  assert.equal(invalidMeta.code, 1);

  const skill = await hcp(["skill", PROBE_PACK]);
  assert.equal(skill.stdout, readFileSync(join(PROBE_PACK, "HARNESS.md"), "utf8"));
  const noSkill = await hcp(["skill", LEDGER]);
  assert.equal(noSkill.code, 5);

  const list = JSON.parse((await hcp(["list", "--json", PROBE_PACK])).stdout) as { packs: { verbs: { verb: string; policy: string; confirm: string | false; runnable: boolean }[] }[] };
  const verbs = Object.fromEntries(list.packs[0]!.verbs.map((v) => [v.verb, [v.policy, v.confirm, v.runnable]]));
  assert.deepEqual(verbs["transfer"], ["write", "person", false]);
  assert.deepEqual(verbs["hidden"], ["deny", false, false]);
  assert.deepEqual(verbs["echo"], ["read", false, true]);
  const text = await hcp(["list", PROBE_PACK, "--allow-write"]);
  assert.match(text.stdout, /^ {2}transfer +write, needs a person's approval +A gated write: move an amount to a payee\.$/m);
  assert.match(text.stdout, /^ {2}hidden +deny +.*\[denied: never runs\]$/m);
  const plain = await hcp(["list", PROBE_PACK]);
  assert.match(plain.stdout, /^ {2}transfer +write, needs a person's approval +A gated write: .*payee\. {2}\[refused without --allow-write\]$/m);
  assert.match(plain.stdout, /^hcp-probe {2}\S+hcp-probe\n {2}wrap pack, runtime plane; no credentials, binding mode \w+; served over cli, json_exec, mcp$/m);
});

test("init: a pack from the rgref manifest validates; a non-empty folder is refused unless --force", async () => {
  const dir = tempDir();
  const out = join(dir, "rgref");
  const init = await hcp(["init", "--from-manifest", "examples/manifests/rgref.json", "--out", out]);
  assert.equal(init.code, 0, init.stderr);
  assert.deepEqual(readdirSync(out).sort(), ["HARNESS.md", "policy.json", "surface.json"]);
  const check = await hcp(["validate", out]);
  assert.equal(check.code, 0, check.stdout);
  const surface = JSON.parse(readFileSync(join(out, "surface.json"), "utf8")) as { kind: string; wrap: { bin: string } };
  assert.equal(surface.kind, "wrap");

  const busy = join(dir, "busy");
  mkdirSync(busy);
  writeFileSync(join(busy, "keep.txt"), "mine");
  const refused = await hcp(["init", "--from-manifest", "examples/manifests/rgref.json", "--out", busy]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^Error: refusing to write into .*busy: it already exists and is not empty/);
  assert.deepEqual(readdirSync(busy), ["keep.txt"], "nothing written");
  const forced = await hcp(["init", "--from-manifest", "-", "--out", busy, "--force"], { stdin: readFileSync(join(REPO, "examples/manifests/rgref.json"), "utf8") });
  assert.equal(forced.code, 0, forced.stderr);
  assert.deepEqual(readdirSync(busy).sort(), ["HARNESS.md", "keep.txt", "policy.json", "surface.json"]);
  assert.equal(readdirSync(dir).filter((n) => n.startsWith(".")).length, 0, "no staging folder left behind");

  const both = await hcp(["init", "--out", join(dir, "x")]);
  assert.equal(both.code, 1);
  const broken = await hcp(["init", "--from-manifest", "-", "--out", join(dir, "y")], { stdin: "{" });
  assert.equal(broken.code, 1);
  assert.doesNotMatch(broken.stderr, /\n\s+at /);
});

test("init --dry-run generates and checks the pack but writes nothing", async () => {
  const dir = tempDir();
  const out = join(dir, "rgref");
  const dry = await hcp(["init", "--from-manifest", "examples/manifests/rgref.json", "--out", out, "--dry-run"]);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^DRY RUN: would write pack rgref \(\d+ verbs\): /);
  const json = await hcp(["init", "--from-manifest", "examples/manifests/rgref.json", "--out", out, "--dry-run", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  const body = JSON.parse(json.stdout) as { dry_run: boolean; pack_id: string; files: string[] };
  assert.deepEqual([body.dry_run, body.pack_id, body.files.length], [true, "rgref", 3]);
  assert.equal(json.stderr, "", "no notes under --json");
  assert.deepEqual(readdirSync(dir), [], "nothing written, no staging folder left");
});

test("the framework surface: a valid manifest, globals, `--` ends hcp's flags, machine errors carry the code", async () => {
  const manifest = await hcp(["__rungrad_manifest"]);
  assert.equal(manifest.code, 0, manifest.stderr);
  const checked = await rungrad(["manifest", "validate", "-"], { stdin: manifest.stdout });
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  const doc = JSON.parse(manifest.stdout) as {
    tool_name: string;
    global_flags: { name: string }[];
    commands: { path: string[]; supports_dry_run: boolean; local_flags: { name: string; type: string }[] }[];
  };
  assert.equal(doc.tool_name, "hcp");
  for (const g of ["json", "dry-run", "no-prompt", "quiet"]) assert.ok(doc.global_flags.some((f) => f.name === g), g);
  const runCmd = doc.commands.find((c) => c.path.join(" ") === "run")!;
  assert.equal(runCmd.supports_dry_run, true);
  assert.deepEqual(runCmd.local_flags.find((f) => f.name === "arg")?.type, "stringArray");

  const [dashed, killed, badFlag, denied, execDry] = await Promise.all([
    hcp(["run", PROBE_PACK, "--", "run", "--json"]),
    hcp(["run", PROBE_PACK, "--", "run", "kill:SIGKILL"]),
    hcp(["run", PROBE_PACK, "echo", "--bogus", "--json"]),
    hcp(["run", PROBE_PACK, "hidden", "--json"]),
    hcp(["exec", PROBE_PACK, "--dry-run"]),
  ]);
  assert.deepEqual([dashed.code, dashed.stdout], [64, ""], "--json after -- is the child's");
  assert.match(dashed.stderr, /unknown step "--json"/);
  assert.equal(killed.code, 137, "128 + SIGKILL");
  assert.deepEqual([badFlag.code, JSON.parse(badFlag.stderr)], [1, { error: "unknown flag: --bogus (a verb's arguments are given as --arg NAME=VALUE: --arg bogus=…)", exit_code: 1 }]);
  assert.deepEqual([denied.code, JSON.parse(denied.stderr)], [4, { code: "denied", error: 'verb "hidden" of pack "hcp-probe" is denied by policy', exit_code: 4 }]);
  assert.equal(execDry.code, 1);
  assert.equal(execDry.stderr, "Error: unknown flag: --dry-run\n", "requests carry dry_run: the flag is not hcp exec's");
});
