// The examples a newcomer copies: examples/manifests/rgref.json is the built rgref's manifest, and the verbs
// `hcp run --help` shows exist in the pack the README makes from rgref.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { GO_TEMPLATE_USAGE, TS_TEMPLATE_USAGE } from "../framework/helpers.js";
import { REPO, run, trustPack } from "./helpers.js";
import { hcp, tempDir } from "../transports/support.js";
import { isolatedEnv } from "./hardening.js";

const RGREF = join(REPO, "examples/rgref/rgref");

test("examples/manifests/rgref.json is the built rgref's manifest (but for --template's usage, Go's there: docs/go-differences.md)", async () => {
  const built = await run(RGREF, ["__rungrad_manifest"]);
  assert.equal(built.code, 0, built.stderr);
  const example = readFileSync(join(REPO, "examples/manifests/rgref.json"), "utf8");
  assert.equal(built.stdout.replace(TS_TEMPLATE_USAGE, GO_TEMPLATE_USAGE), example);
});

test("every `hcp run --help` example names a verb of the pack made from rgref, with arguments it accepts", async () => {
  const help = await hcp(["run", "--help"], { env: isolatedEnv() });
  const examples = [...help.stdout.matchAll(/^ *hcp run \.\/rgref (\S+)(.*)$/gm)];
  assert.ok(examples.length >= 3, help.stdout);
  const dir = tempDir("hcp-run-examples-");
  const made = await hcp(["init", "--from-manifest", "examples/manifests/rgref.json", "--bin", RGREF, "--out", join(dir, "rgref")], { env: isolatedEnv() });
  assert.equal(made.code, 0, made.stderr);
  const list = await hcp(["list", join(dir, "rgref"), "--json"], { env: isolatedEnv() });
  const listed = (JSON.parse(list.stdout) as { packs: { verbs: { verb: string; policy: string; confirm: string | false }[] }[] }).packs[0]!.verbs;
  const verbs = listed.map((v) => v.verb);
  // A verb that only reads and needs no confirmation has no dry run: it runs (rgref's reads change nothing).
  const plainReads = new Set(listed.filter((v) => v.policy === "read" && v.confirm === false).map((v) => v.verb));
  const env = isolatedEnv();
  // The README's credential, which the reads that run look for.
  writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify({ rgref: { env: { RGREF_TOKEN: "demo-token" } } }), { mode: 0o600 });
  await trustPack(join(dir, "rgref"), env);
  for (const [, verb, rest] of examples) {
    assert.ok(verbs.includes(verb!), `hcp run --help shows ${verb}, which the pack does not have`);
    // Dry runs check the arguments without running anything.
    const args = (rest!.replace(/--(confirm|approver|approver-arg) \S+/g, "").match(/'[^']*'|\S+/g) ?? []).map((a) => a.replace(/^'|'$/g, "")).filter((a) => a !== "--dry-run");
    const planned = await hcp(["run", join(dir, "rgref"), verb!, ...args, ...(plainReads.has(verb!) ? [] : ["--dry-run"]), "--allow-write"], { env, cwd: dir });
    assert.equal(planned.code, 0, `${verb} ${rest}: ${planned.stderr}`);
  }
});

test("examples/packs/git, the pack written by hand in docs/packs.md: it validates; trusted, its reads show the repository hcp runs in, add runs only with --allow-write, commit only with its plan_id restated, and a path that looks like a flag stays a path", async () => {
  const git = join(REPO, "examples/packs/git");
  const env = isolatedEnv();
  const validated = await hcp(["validate", git, "--json"], { env });
  assert.equal(validated.code, 0, validated.stdout);
  assert.deepEqual((JSON.parse(validated.stdout) as { packs: { issues: unknown[] }[] }).packs[0]!.issues, []);
  await trustPack(git, env);
  const repo = tempDir("hcp-git-example-");
  for (const args of [["init", "-q"], ["config", "user.name", "Example"], ["config", "user.email", "example@example.org"]]) await run("git", args, { cwd: repo, env });
  writeFileSync(join(repo, "notes.txt"), "one\n");
  const inRepo = (args: string[]) => hcp(["run", git, ...args], { env, cwd: repo });
  const commits = async () => (await run("git", ["rev-list", "--all", "--count"], { cwd: repo, env })).stdout.trim();

  assert.match((await inRepo(["status"])).stdout, /^\?\? notes\.txt$/m);
  const refused = await inRepo(["add", "--arg", 'paths:=["notes.txt"]']);
  assert.equal(refused.code, 4, refused.stderr);
  assert.doesNotMatch((await inRepo(["status"])).stdout, /^A {2}notes\.txt$/m, "nothing was staged");
  assert.equal((await inRepo(["add", "--arg", 'paths:=["notes.txt"]', "--allow-write"])).code, 0);
  assert.match((await inRepo(["status"])).stdout, /^A {2}notes\.txt$/m);

  const unconfirmed = await inRepo(["commit", "--arg", "message=first", "--allow-write"]);
  assert.equal(unconfirmed.code, 4, unconfirmed.stderr);
  assert.equal(await commits(), "0", "no commit without the plan_id");
  const dry = await inRepo(["commit", "--arg", "message=first", "--allow-write", "--dry-run", "--json"]);
  const planId = (JSON.parse(dry.stdout) as { plan_id: string }).plan_id;
  assert.equal((await inRepo(["commit", "--arg", "message=first", "--allow-write", "--confirm", planId])).code, 0);
  assert.match((await inRepo(["log", "--arg", "count:=1"])).stdout, /^[0-9a-f]+ first$/m);

  // git diff --output=FILE would write FILE: after the pack's `--` it is a path that matches nothing.
  const written = join(repo, "written");
  const diff = await inRepo(["diff", "--arg", `paths:=["--output=${written}"]`]);
  assert.equal(diff.code, 0, diff.stderr);
  assert.equal(existsSync(written), false);
});

test("attack: examples/packs/git's read verb diff prints no file outside the repository: two paths, one outside (git diff's plain diff of two files), nor any two files from a folder that is no repository; the unstaged change still shows", async () => {
  const git = join(REPO, "examples/packs/git");
  const env = isolatedEnv();
  await trustPack(git, env);
  const repo = tempDir("hcp-git-example-");
  for (const args of [["init", "-q"], ["config", "user.name", "Example"], ["config", "user.email", "example@example.org"]]) await run("git", args, { cwd: repo, env });
  writeFileSync(join(repo, "notes.txt"), "one\n");
  await run("git", ["add", "notes.txt"], { cwd: repo, env });
  writeFileSync(join(repo, "notes.txt"), "one\ntwo\n");
  const outside = tempDir("hcp-git-outside-");
  const key = join(outside, "id_ed25519");
  writeFileSync(join(outside, "id_ed25519.pub"), "ssh-ed25519 AAAA public\n");
  writeFileSync(key, "PRIVATE-KEY-Zq9w\n", { mode: 0o600 });
  const diff = (cwd: string, paths: string[]) => hcp(["run", git, "diff", "--arg", `paths:=${JSON.stringify(paths)}`], { env, cwd });

  const change = await diff(repo, []);
  assert.equal(change.code, 0, change.stderr);
  assert.match(change.stdout, /^\+two$/m);
  for (const [cwd, paths] of [
    [repo, [key, "/dev/null"]],
    [repo, ["notes.txt", key]],
    [repo, [relative(repo, key), "notes.txt"]],
    [outside, ["id_ed25519", "id_ed25519.pub"]],
  ] as const) {
    const r = await diff(cwd, [...paths]);
    assert.equal(`${r.stdout}${r.stderr}`.includes("Zq9w"), false, `${cwd} ${paths.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.notEqual(r.code, 0, `${cwd} ${paths.join(" ")}: ${r.stdout}`);
  }
});
