// Writing files against an attacker's folder: rungrad skill, rungrad new and hcp init never write through a planted
// symbolic link, never take an unreadable folder for an empty one, leave nothing behind when a write fails midway,
// and a dry run writes nothing at all.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO, rungrad } from "./helpers.js";
import { tempDir as temp } from "../temp.js";
import { hcp } from "../transports/support.js";

const MANIFEST = join(REPO, "examples/manifests/rgref.json");
const VICTIM_TEXT = "the victim's own content\n";

/** A file outside the output folder that a planted link points at. */
function victim(): string {
  const file = join(temp("victim-"), "precious.txt");
  writeFileSync(file, VICTIM_TEXT);
  return file;
}

/** Every entry under dir, recursively, as relative paths (links not followed). */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

/** A relative path of exactly `length` characters made of nested folders, created under cwd. */
function deepFolder(cwd: string, length: number): string {
  const parts: string[] = [];
  let left = length;
  while (left > 0) {
    const n = Math.min(200, left - (parts.length > 0 ? 1 : 0));
    parts.push("d".repeat(n));
    left -= n + (parts.length > 1 ? 1 : 0);
  }
  const rel = parts.join("/");
  assert.equal(rel.length, length);
  const made = spawnSync("mkdir", ["-p", rel], { cwd });
  assert.equal(made.status, 0, String(made.stderr));
  return rel;
}

test("rungrad skill never writes through a link planted at a target, even with --force, and writes nothing else", async () => {
  const out = temp("skill-link-");
  const target = victim();
  mkdirSync(join(out, ".agents/skills/rgref"), { recursive: true });
  symlinkSync(target, join(out, ".agents/skills/rgref/SKILL.md"));
  for (const force of [[], ["--force"]]) {
    const r = await rungrad(["skill", MANIFEST, "--out", out, ...force]);
    assert.notEqual(r.code, 0);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
    assert.equal(readFileSync(target, "utf8"), VICTIM_TEXT, "the linked file is untouched");
    assert.ok(lstatSync(join(out, ".agents/skills/rgref/SKILL.md")).isSymbolicLink());
    assert.equal(existsSync(join(out, ".agents/README.md")), false, "all or nothing: the other file is not written either");
  }
  const forced = await rungrad(["skill", MANIFEST, "--out", out, "--force"]);
  assert.equal(forced.code, 2);
  assert.match(forced.stderr, /refusing to write through .*SKILL\.md: it is a symbolic link/);
});

test("rungrad skill never follows a folder link planted inside --out", async () => {
  const out = temp("skill-dirlink-");
  const elsewhere = temp("elsewhere-");
  symlinkSync(elsewhere, join(out, ".agents"));
  const r = await rungrad(["skill", MANIFEST, "--out", out, "--force"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /refusing to write through .*\.agents: it is a symbolic link/);
  assert.deepEqual(tree(elsewhere), [], "nothing lands in the linked folder");
});

test("rungrad skill's temporary files are never a planted link (predictable names <target>.<pid>.tmp)", async () => {
  const out = temp("skill-tmp-");
  const target = victim();
  mkdirSync(join(out, ".agents/skills/rgref"), { recursive: true });
  // The next pids: plant a link for each, where a writer naming its temp file after its pid would write.
  const next = spawnSync("true").pid!;
  for (let pid = next; pid < next + 400; pid++) {
    symlinkSync(target, join(out, `.agents/README.md.${pid}.tmp`));
    symlinkSync(target, join(out, `.agents/skills/rgref/SKILL.md.${pid}.tmp`));
  }
  const r = await rungrad(["skill", MANIFEST, "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(target, "utf8"), VICTIM_TEXT);
  assert.match(readFileSync(join(out, ".agents/skills/rgref/SKILL.md"), "utf8"), /^---\nname: rgref\n/);
  assert.equal(lstatSync(join(out, ".agents/README.md")).mode & 0o777, 0o644);
  assert.deepEqual(tree(join(out, ".agents")).filter((p) => !/\.\d+\.tmp$/.test(p)), ["README.md", "skills", "skills/rgref", "skills/rgref/SKILL.md"], "no temporary file left");
});

test("rungrad skill: a write failing midway leaves nothing behind", async () => {
  const cwd = temp("skill-midway-");
  // 4060 characters: .agents/README.md and its temporary file fit in PATH_MAX; a file in .agents/skills/rgref does not.
  const out = deepFolder(cwd, 4060);
  const r = await rungrad(["skill", MANIFEST, "--out", out], { cwd });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^Error: cannot (write|create) /);
  assert.deepEqual(tree(join(cwd, out.split("/")[0]!)).filter((p) => p.includes(".agents")), [], "no .agents left");
});

test("rungrad new: a write failing midway leaves nothing behind, not even the project folder", async () => {
  const cwd = temp("new-midway-");
  // 4080 characters: <dir>/t/README.md fits in PATH_MAX, <dir>/t/test/main.test.ts does not.
  const dir = deepFolder(cwd, 4080);
  const r = await rungrad(["new", "t", "--dir", dir], { cwd });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^Error: scaffold: cannot (write|create) /);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  assert.equal(tree(join(cwd, dir.split("/")[0]!)).some((p) => p.endsWith("/t") || p.includes("/t/")), false, "no project folder left");
});

test("rungrad new refuses a project folder it cannot read instead of taking it for empty", async () => {
  const dir = temp("new-unreadable-");
  symlinkSync("loop", join(dir, "loop")); // ELOOP on every read
  const looped = await rungrad(["new", "loop", "--dir", dir]);
  assert.equal(looped.code, 2);
  assert.match(looped.stderr, /^Error: scaffold: cannot read .*loop: too many levels of symbolic links$/m);
  writeFileSync(join(dir, "file"), "x");
  const file = await rungrad(["new", "file", "--dir", dir]);
  assert.equal(file.code, 2);
  assert.equal(readFileSync(join(dir, "file"), "utf8"), "x");
  if (process.getuid?.() !== 0) {
    mkdirSync(join(dir, "locked"));
    writeFileSync(join(dir, "locked", "mine"), "x");
    chmodSync(join(dir, "locked"), 0o000);
    const locked = await rungrad(["new", "locked", "--dir", dir]);
    chmodSync(join(dir, "locked"), 0o755);
    assert.equal(locked.code, 2);
    assert.match(locked.stderr, /cannot read .*locked/);
  }
});

test("rungrad new never writes through a link planted as the project folder", async () => {
  const dir = temp("new-link-");
  const elsewhere = temp("elsewhere-");
  symlinkSync(elsewhere, join(dir, "t"));
  const r = await rungrad(["new", "t", "--dir", dir]);
  // An empty folder behind a link: writing into it would write outside --dir.
  assert.notEqual(r.code, 0);
  assert.deepEqual(tree(elsewhere), []);
});

test("hcp init --dry-run writes nothing at all, even where the folder's parent is not writable", async () => {
  const parent = temp("init-dry-");
  const before = tree(parent);
  const env = { ...process.env, HOME: parent, XDG_STATE_HOME: parent, XDG_CONFIG_HOME: parent, HCP_AUDIT: "none" };
  const dry = await hcp(["init", "--from-manifest", MANIFEST, "--out", join(parent, "pack"), "--dry-run", "--json"], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(JSON.parse(dry.stdout).dry_run, true);
  assert.deepEqual(tree(parent), before, "no staging folder, no file");
  // A parent that cannot be written: the dry run still checks the pack and succeeds.
  const nowhere = await hcp(["init", "--from-manifest", MANIFEST, "--out", "/proc/hcp-init-dry/pack", "--dry-run"], { env });
  assert.equal(nowhere.code, 0, nowhere.stderr);
  assert.match(nowhere.stdout, /^DRY RUN: would write pack rgref/);
});

test("hcp init never writes through a link planted at a pack file (--force)", async () => {
  const out = temp("init-link-");
  const target = victim();
  symlinkSync(target, join(out, "policy.json"));
  const env = { ...process.env, HOME: out, XDG_STATE_HOME: out, XDG_CONFIG_HOME: out, HCP_AUDIT: "none" };
  const r = await hcp(["init", "--from-manifest", MANIFEST, "--out", out, "--force"], { env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /refusing to write through .*policy\.json: it is a symbolic link/);
  assert.equal(readFileSync(target, "utf8"), VICTIM_TEXT);
  assert.deepEqual(tree(out), ["policy.json"], "all or nothing: surface.json and HARNESS.md are not written either");
});
