// Packs generated from real-shaped rungrad manifests with the built hcp, then run: every test checks the exact argv and
// environment the wrapped program received (the probe prints both as JSON).

import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fixture, trustPack } from "./helpers.js";
import { PROBE, isolatedEnv } from "./hardening.js";
import { hcp, tempDir } from "../transports/support.js";

const TASKR = fixture("manifests/taskr.json");
const TOKEN = "tk-live-5b1f0a9c";

/** A taskr pack generated into a folder whose parents do not exist yet and trusted, and an env with its credential file. */
async function taskrPack(): Promise<{ pack: string; env: NodeJS.ProcessEnv }> {
  const env = isolatedEnv();
  writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify({ taskr: { env: { TASKR_TOKEN: TOKEN } } }));
  chmodSync(env["HCP_CREDENTIALS"]!, 0o600);
  const pack = join(tempDir(), "packs", "nested", "taskr");
  const r = await hcp(["init", "--from-manifest", TASKR, "--bin", PROBE, "--out", pack], { env });
  assert.equal(r.code, 0, r.stderr);
  await trustPack(pack, env);
  return { pack, env };
}

/** Runs a verb with --json; the probe's report of what ran. */
async function ran(pack: string, env: NodeJS.ProcessEnv, verb: string, args: Record<string, unknown>, extra: string[] = []) {
  const r = await hcp(["run", pack, verb, "--args", JSON.stringify(args), "--json", ...extra], { env });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const result = JSON.parse(r.stdout) as { json: { argv: string[]; env: Record<string, string> } };
  return result.json;
}

test("hcp init: every runnable command is a verb (runnable parents too), update split in two, --out parents made", async () => {
  const { pack, env } = await taskrPack();
  const surface = JSON.parse(readFileSync(join(pack, "surface.json"), "utf8")) as { verbs: Record<string, unknown>; binding: unknown };
  assert.deepEqual(Object.keys(surface.verbs), [
    "completion",
    "files.add",
    "project.list",
    "task.comment",
    "task.comment.delete",
    "task.list",
    "task.tag",
    "update.check",
    "update",
    "version",
  ]);
  assert.deepEqual(surface.binding, { mode: "user", hub: "local-credential", family: "taskr" });
  const policy = JSON.parse(readFileSync(join(pack, "policy.json"), "utf8")) as { credentials: string[]; verbs: Record<string, unknown> };
  assert.deepEqual(policy.credentials, ["TASKR_TOKEN"]);
  assert.equal(policy.verbs["update.check"], "read");
  assert.equal(policy.verbs["update"], "write");
  const v = await hcp(["validate", pack], { env });
  assert.equal(v.code, 0, v.stdout);
  assert.match(v.stdout, /1 pack: 1 valid, 0 invalid; 0 errors, 0 warnings/);
  const list = await hcp(["list", pack], { env });
  assert.match(list.stdout, /^ {2}wrap pack, runtime plane; credentials from the credential file, family "taskr", binding mode user; served over cli, json_exec, mcp$/m);
  assert.match(list.stdout, /^ {2}task\.comment\.delete +write, needs a person's approval +Delete a comment {2}\[refused without --allow-write\]$/m);
});

test("a runnable parent runs with its operands: task comment <task-gid> <message>", async () => {
  const { pack, env } = await taskrPack();
  const report = await ran(pack, env, "task.comment", { task_gid: "1207", message: "shipped --today" }, ["--allow-write"]);
  assert.deepEqual(report.argv, ["task", "comment", "--json", "--no-prompt", "--", "1207", "shipped --today"]);
});

test("an operand starting with - reaches the program as an operand: the generated template puts -- before the operands", async () => {
  const { pack, env } = await taskrPack();
  const report = await ran(pack, env, "task.comment", { task_gid: "1207", message: "-1: see --help" }, ["--allow-write"]);
  assert.deepEqual(report.argv, ["task", "comment", "--json", "--no-prompt", "--", "1207", "-1: see --help"]);
});

test("a runnable parent's first operand cannot name one of its subcommands (the program would run that one instead)", async () => {
  const { pack, env } = await taskrPack();
  // `taskr task comment delete c9`: the destructive, person-gated `task comment delete` run as the plain write task.comment.
  for (const name of ["delete", "help"]) {
    const r = await hcp(["run", pack, "task.comment", "--args", JSON.stringify({ task_gid: name, message: "c9" }), "--allow-write"], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /argument "task_gid": must not be "delete", "help"/);
    assert.equal(r.stdout, "", "nothing ran");
  }
  const other = await ran(pack, env, "task.comment", { task_gid: "deleted", message: "c9" }, ["--allow-write"]);
  assert.deepEqual(other.argv.slice(-2), ["deleted", "c9"]);
});

test("optional operands are dropped when absent; flags with defaults are not sent unless given; arrays repeat", async () => {
  const { pack, env } = await taskrPack();
  assert.deepEqual((await ran(pack, env, "task.list", {})).argv, ["task", "list", "--json", "--no-prompt", "--"]);
  assert.deepEqual((await ran(pack, env, "task.list", { project: "web", tag: ["p1", "ux"], limit: 5 })).argv, [
    "task",
    "list",
    "--json",
    "--no-prompt",
    "--limit=5",
    "--tag=p1",
    "--tag=ux",
    "--",
    "web",
  ]);
  assert.deepEqual((await ran(pack, env, "completion", {})).argv, ["completion", "--"]);
  assert.deepEqual((await ran(pack, env, "completion", { completion: "zsh" })).argv, ["completion", "--", "zsh"]);
});

test("variadic operands are arrays: an optional one may be empty, a required one may not", async () => {
  const { pack, env } = await taskrPack();
  const w = ["--allow-write"];
  assert.deepEqual((await ran(pack, env, "files.add", { task_gid: "9", paths: ["a.txt", "b c.png"] }, w)).argv, [
    "files",
    "add",
    "--json",
    "--no-prompt",
    "--",
    "9",
    "a.txt",
    "b c.png",
  ]);
  assert.deepEqual((await ran(pack, env, "files.add", { task_gid: "9" }, w)).argv, ["files", "add", "--json", "--no-prompt", "--", "9"]);
  assert.deepEqual((await ran(pack, env, "files.add", { task_gid: "9", paths: [] }, w)).argv, ["files", "add", "--json", "--no-prompt", "--", "9"]);
  const empty = await hcp(["run", pack, "task.tag", "--args", '{"task_gid": "9", "tags": [], "color": "red"}', "--allow-write"], { env });
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /tags/);
});

test("a choice operand is an enum: a value outside it is refused before anything runs", async () => {
  const { pack, env } = await taskrPack();
  const r = await hcp(["run", pack, "completion", "--arg", "completion=tcsh"], { env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /argument "completion": must be one of "bash", "zsh", "fish"/);
  assert.equal(r.stdout, "", "nothing ran");
});

test("argument errors name the argument: unknown, missing, wrong type (§6.3)", async () => {
  const { pack, env } = await taskrPack();
  const r = await hcp(["run", pack, "task.comment", "--args", '{"task_gid": 1, "y": true}', "--allow-write"], { env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /unknown argument "y"/);
  assert.match(r.stderr, /argument "message" is required/);
  assert.match(r.stderr, /argument "task_gid": must be string/);
  assert.equal(r.stdout, "");
});

test("hcp run points an agent's likely mistake at the fix: a verb's argument given as a flag of its own (--message), a name a letter off or with - for _ (did you mean), one close to none (the names there are); each exit 1, nothing run", async () => {
  const { pack, env } = await taskrPack();
  const flag = await hcp(["run", pack, "task.comment", "--message", "hi", "--allow-write"], { env });
  assert.equal(flag.code, 1);
  assert.equal(flag.stderr, "Error: unknown flag: --message (a verb's arguments are given as --arg NAME=VALUE: --arg message=…)\n");
  // Given as --name=value, the value is not repeated.
  const inline = await hcp(["run", pack, "task.comment", "--message=s3cr3t", "--allow-write"], { env });
  assert.equal(inline.stderr, "Error: unknown flag: --message (a verb's arguments are given as --arg NAME=VALUE: --arg message=…)\n");
  const near = await hcp(["run", pack, "task.comment", "--arg", "task-gid=9", "--arg", "mesage=hi", "--allow-write"], { env });
  assert.equal(near.code, 1);
  assert.match(near.stderr, /unknown argument "task-gid" \(did you mean "task_gid"\?\)/);
  assert.match(near.stderr, /unknown argument "mesage" \(did you mean "message"\?\)/);
  const far = await hcp(["run", pack, "task.comment", "--arg", "zzz=1", "--allow-write"], { env });
  assert.match(far.stderr, /unknown argument "zzz" \(its arguments: [^)]*\btask_gid\b[^)]*\)/);
  for (const r of [flag, inline, near, far]) assert.equal(r.stdout, "", "nothing ran");
});

test("update.check reads (no --allow-write needed) and update writes", async () => {
  const { pack, env } = await taskrPack();
  assert.deepEqual((await ran(pack, env, "update.check", {})).argv, ["update", "--check", "--json", "--no-prompt"]);
  const refused = await hcp(["run", pack, "update"], { env });
  assert.equal(refused.code, 4);
  assert.match(refused.stderr, /--allow-write/);
  assert.equal(refused.stdout, "");
  assert.deepEqual((await ran(pack, env, "update", {}, ["--allow-write"])).argv, ["update", "--json", "--no-prompt"]);
});

test("auth-requiring CLIs get the token from the credential file only; exported in the shell it does not reach the child", async () => {
  const { pack, env } = await taskrPack();
  const report = await ran(pack, env, "project.list", {});
  assert.equal(report.env["TASKR_TOKEN"], "***", "the child got the token, and the output masks it");
  assert.equal(report.env["HCP_BINDING_FAMILY"], "taskr");

  const noFile = { ...env, HCP_CREDENTIALS: join(tempDir(), "missing.json"), TASKR_TOKEN: TOKEN };
  const r = await hcp(["run", pack, "project.list"], { env: noFile });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /credential file .* does not exist/);
  assert.equal(r.stdout, "");
  assert.ok(!r.stderr.includes(TOKEN));
});

test("HARNESS.md names the tools' argument names, the approval path and how to provide the credential", async () => {
  const { pack } = await taskrPack();
  const harness = readFileSync(join(pack, "HARNESS.md"), "utf8");
  assert.match(harness, /### `task\.comment\.delete` \(write, needs a person's approval, needs credentials\)/);
  assert.match(harness, /- `comment_gid` \(string, required\)/);
  assert.match(harness, /- `completion` \(string, optional, one of "bash", "zsh", "fish"\)/);
  assert.match(harness, /- `paths` \(array of strings, optional\)/);
  assert.match(harness, /hcp approve <plan_id>/);
  assert.match(harness, /\{"taskr": \{"env": \{"TASKR_TOKEN": "\.\.\."\}\}\}/);
  assert.equal(harness.split("pack_untrusted").length - 1, 1, "an untrusted pack's refusal is explained once");
  assert.doesNotMatch(harness, /<comment-gid>|<task-gid>/, "usage placeholders are not argument names");
  assert.doesNotMatch(harness, /(do not|don't) use .*MCP|in a shell instead/i);
});

test("an empty short description gets a fallback sentence", async () => {
  const { pack } = await taskrPack();
  const surface = JSON.parse(readFileSync(join(pack, "surface.json"), "utf8")) as { verbs: Record<string, { description: string }> };
  assert.equal(surface.verbs["project.list"]!.description, "Runs `taskr project list`");
});

test("hcp init: a failed generation leaves no folder behind, and an existing pack is not overwritten", async () => {
  const env = isolatedEnv();
  const root = tempDir();
  const bad = join(root, "bad.json");
  writeFileSync(bad, "{\"schema_version\": \"rungrad-manifest/1\"}");
  const out = join(root, "made", "deeper", "pack");
  const r = await hcp(["init", "--from-manifest", bad, "--out", out], { env });
  assert.notEqual(r.code, 0);
  assert.equal(existsSync(join(root, "made")), false, "the parents made for it are removed again");

  mkdirSync(join(root, "mine"));
  writeFileSync(join(root, "mine", "surface.json"), "{}");
  const again = await hcp(["init", "--from-manifest", TASKR, "--out", join(root, "mine")], { env });
  assert.equal(again.code, 2, "already exists: exit 2, as in rungrad");
  assert.equal(readFileSync(join(root, "mine", "surface.json"), "utf8"), "{}");
});

test("hcp init --force --keep-policy: the person's policy.json kept byte for byte, HARNESS.md made to say what it does; refused, nothing written, without --force, without a policy.json, when it names a verb the CLI no longer has, or when it gives a verb that changed fewer checks than hcp gives it now", async () => {
  const env = isolatedEnv();
  const pack = join(tempDir(), "taskr");
  const init = (...extra: string[]) => hcp(["init", "--from-manifest", TASKR, "--bin", PROBE, "--out", pack, ...extra], { env });
  assert.equal((await init()).code, 0);
  const policy = JSON.parse(readFileSync(join(pack, "policy.json"), "utf8")) as { verbs: Record<string, unknown> };
  // The person's edits: a gated write made a read, a write gated by its plan, a verb left to the default (deny).
  policy.verbs["task.comment.delete"] = "read";
  policy.verbs["task.tag"] = { policy: "write", confirm: "plan" };
  delete policy.verbs["version"];
  const edited = `${JSON.stringify(policy, null, 1)}\n\n`;
  writeFileSync(join(pack, "policy.json"), edited);
  // And an edit of surface.json: a flag added to a verb, as hcp init's notes suggest for a global flag.
  const surface = JSON.parse(readFileSync(join(pack, "surface.json"), "utf8")) as { verbs: Record<string, { cli: string[] }> };
  surface.verbs["task.tag"]!.cli.push("--verbose");
  writeFileSync(join(pack, "surface.json"), JSON.stringify(surface));
  const files = () => ["surface.json", "policy.json", "HARNESS.md"].map((f) => readFileSync(join(pack, f), "utf8"));
  const before = files();
  assert.match((await hcp(["validate", pack], { env })).stdout, /HARNESS\.md says verb "task\.comment\.delete" is "write, needs a person's approval", and policy\.json makes it "read".*run that hcp init again with --force --keep-policy/);

  const unforced = await init("--keep-policy");
  assert.equal(unforced.code, 2);
  assert.match(unforced.stderr, /add --force: with --keep-policy, its policy\.json is kept and the other pack files replaced/);
  assert.deepEqual(files(), before);

  const kept = await init("--force", "--keep-policy");
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stderr, /note: policy\.json kept as it was \(--keep-policy\), and HARNESS\.md written to say what it does; 1 verb it does not name follows its default or its surface\.json hint: "version" \(deny\)/);
  // The surface.json edit is not kept, and hcp init says so rather than losing it silently.
  assert.match(kept.stderr, /\nnote: surface\.json is made anew from the CLI: 1 verb now differs from what it said, an edit of yours there not kept: "task\.tag" \(its cli\); make such an edit again after each hcp init\n/);
  const [, policyAfter, harness] = files();
  assert.equal(policyAfter, edited, "policy.json byte for byte");
  assert.match(harness!, /^### `task\.comment\.delete` \(read, needs credentials\)$/m);
  assert.match(harness!, /^### `task\.tag` \(write, needs its plan_id restated, needs credentials\)$/m);
  assert.doesNotMatch(harness!, /^### `version`/m, "a verb policy.json denies is not described");
  const v = await hcp(["validate", pack], { env });
  assert.doesNotMatch(v.stdout, /HARNESS\.md/, "no heading disagrees with policy.json");

  // A kept policy.json naming a verb the pack made now does not have: refused, nothing written.
  policy.verbs["task.archive"] = "write";
  writeFileSync(join(pack, "policy.json"), JSON.stringify(policy));
  const stale = files();
  const refused = await init("--force", "--keep-policy");
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /the policy\.json kept \(--keep-policy\) does not fit the pack made now: .*task\.archive/);
  assert.deepEqual(files(), stale);

  // The CLI changed: `task list` now deletes what it lists (mutates, destructive, asks for confirmation). The policy.json
  // kept names it "read", as hcp made it when it only listed: refused, nothing written, rather than run as a read.
  delete policy.verbs["task.archive"];
  writeFileSync(join(pack, "policy.json"), JSON.stringify(policy));
  const manifest = JSON.parse(readFileSync(TASKR, "utf8")) as { commands: { path: string[]; mutates: boolean; destructive: boolean; requires_confirmation: boolean }[] };
  Object.assign(manifest.commands.find((c) => c.path.join(" ") === "task list")!, { mutates: true, destructive: true, requires_confirmation: true });
  const changed = join(tempDir(), "taskr-changed.json");
  writeFileSync(changed, JSON.stringify(manifest));
  const unchanged = files();
  const widened = await hcp(["init", "--from-manifest", changed, "--bin", PROBE, "--out", pack, "--force", "--keep-policy"], { env });
  assert.equal(widened.code, 2, widened.stderr);
  assert.match(widened.stderr, /--keep-policy: policy\.json gives 1 verb fewer checks than hcp gives it now, and each changed since the pack was made: "task\.list" \(policy\.json: read; hcp now: a person approves each run\); make its entry in policy\.json at least as strict/);
  assert.deepEqual(files(), unchanged, "nothing written");
  // Made at least as strict, the pack is made; the verbs that did not change keep what the person made of them.
  policy.verbs["task.list"] = { policy: "write", confirm: true };
  writeFileSync(join(pack, "policy.json"), JSON.stringify(policy));
  const strict = await hcp(["init", "--from-manifest", changed, "--bin", PROBE, "--out", pack, "--force", "--keep-policy"], { env });
  assert.equal(strict.code, 0, strict.stderr);
  assert.equal(readFileSync(join(pack, "policy.json"), "utf8"), JSON.stringify(policy));

  const empty = join(tempDir(), "empty");
  mkdirSync(empty);
  writeFileSync(join(empty, "surface.json"), "{}");
  const none = await hcp(["init", "--from-manifest", TASKR, "--out", empty, "--force", "--keep-policy"], { env });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--keep-policy: there is no .*policy\.json to keep/);
  assert.equal(readFileSync(join(empty, "surface.json"), "utf8"), "{}");
});

test("hcp validate: an optional whole-token placeholder before a required one is invalid_meta", async () => {
  const root = tempDir();
  writeFileSync(
    join(root, "surface.json"),
    JSON.stringify({
      id: "cp",
      kind: "wrap",
      wrap: { bin: "cp" },
      verbs: {
        copy: {
          description: "Copy",
          cli: ["cp", "{{src}}", "{{dst}}"],
          args: { type: "object", properties: { src: { type: "string" }, dst: { type: "string" } }, required: ["dst"] },
          policy: "write",
        },
      },
    }),
  );
  const r = await hcp(["validate", root], { env: isolatedEnv() });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /surface\.json: verbs\["copy"\]\.cli\[1\]: invalid_meta: placeholder \{\{src\}\} stands before the required \{\{dst\}\}/);
});
