// Red team: hcp run runs a trusted pack from its own verified copy, but a path naming the pack folder in full (an argv
// template `sh /home/you/pack/run.sh`, a `#!/home/you/pack/tool` line, `. /home/you/pack/lib.sh`) reaches the
// folder itself, which the agent rewrites after hcp's last check. Such a pack cannot be trusted: hcp trust refuses it
// (naming the file and line), and hcp run refuses one trusted anyway (a record made before this check) with exit 4,
// running nothing. Separately: hcp trust --revoke removes hcp's copies, and a prune removes a copy an hcp killed
// while making it left, once stale, never a fresh one nor one a running hcp is making; it never follows a link.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, lstatSync, lutimesSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { asAgentInThisFile, fixture, trustPack } from "./helpers.js";
import { hcp, tempDir } from "../transports/support.js";
import { copiesDir, lines, recordedEarlier, rewriteAtSpawn, scene, type Scene } from "./trust-support.js";

asAgentInThisFile();

/** A composite pack at `root` whose verb `go` runs `cli`, with `files` (name → text; `*` ending a name: executable). */
function writePack(root: string, cli: string[], files: Record<string, string>, policy: object = {}): string {
  mkdirSync(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name.replace(/\*$/, "")), text, { mode: name.endsWith("*") ? 0o755 : 0o644 });
  const surface = { id: "selfpath", kind: "composite", binding: { mode: "local", hub: "local-credential", family: "bank" }, verbs: { go: { description: "Goes.", cli, policy: "read" } } };
  writeFileSync(join(root, "surface.json"), JSON.stringify(surface, null, 2));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "selfpath", default: "read", ...policy }, null, 2));
  return root;
}

interface Form {
  what: string;
  /** The pack (in the folder `root`, named `named` in its files), the file the agent rewrites, and the file and line refused. */
  make(root: string, named: string, witness: string): { file: string; refused: RegExp };
}

const say = (witness: string, word: string) => `echo ${word} >> '${witness}'\n`;

const FORMS: Form[] = [
  {
    what: 'an argv template ["sh", "<folder>/run.sh"]',
    make(root, named, w) {
      writePack(root, ["sh", `${named}/run.sh`], { "run.sh": say(w, "trusted") });
      return { file: join(root, "run.sh"), refused: /surface\.json \(line 14\) names the pack folder/ };
    },
  },
  {
    what: 'an argv template ["/usr/bin/env", "sh", "<folder>//./run.sh"] (the separators doubled)',
    make(root, named, w) {
      writePack(root, ["/usr/bin/env", "sh", `${named.replaceAll("/", "//")}//./run.sh`], { "run.sh": say(w, "trusted") });
      return { file: join(root, "run.sh"), refused: /surface\.json \(line 15\) names the pack folder/ };
    },
  },
  {
    what: "a script whose #! line is <folder>/tool",
    make(root, named, w) {
      writePack(root, ["./main.sh"], { "main.sh*": `#!${named}/tool\n`, "tool*": `#!/bin/sh\n${say(w, "trusted")}` });
      return { file: join(root, "tool"), refused: /main\.sh \(line 1\) names the pack folder/ };
    },
  },
  {
    what: "a script sourcing <folder>/lib.sh",
    make(root, named, w) {
      writePack(root, ["./main.sh"], { "main.sh*": `#!/bin/sh\n# the library\n. "${named}/lib.sh"\n`, "lib.sh": say(w, "trusted") });
      return { file: join(root, "lib.sh"), refused: /main\.sh \(line 3\) names the pack folder/ };
    },
  },
];

const EVIL = (witness: string) => `#!/bin/sh\necho evil >> '${witness}'\n`;

test("a pack naming its own folder by an absolute path (argv template, #! line, a sourced file; by its real path or as a link the person named): hcp trust refuses it naming the file and line, hcp run refuses it trusted earlier (exit 4), and the agent's rewrite after the check never runs", async () => {
  const s = scene();
  let n = 0;
  for (const form of FORMS) {
    for (const byLink of [false, true]) {
      const witness = join(s.ws, `witness-${++n}.log`);
      const root = join(s.ws, `pack-${n}`);
      // The person's name for the folder: its real path, or a link to it.
      const named = byLink ? join(s.ws, `alias-${n}`) : root;
      if (byLink) symlinkSync(root, named);
      const { file, refused } = form.make(root, named, witness);
      const what = `${form.what}${byLink ? " (through a link)" : ""}`;

      const trust = await s.onTerminal(["trust", named], "[y/N]", "y");
      assert.notEqual(trust.code, 0, `${what}: ${trust.stdout}`);
      assert.match(trust.stdout, refused, what);
      assert.ok(!trust.stdout.includes("Trusted."), what);

      recordedEarlier(root, s);
      const r = await hcp(["run", named, "go"], { env: rewriteAtSpawn(s, file, EVIL(witness)), timeoutMs: 60_000 });
      assert.equal(r.code, 4, `${what}: ${r.stderr}`);
      assert.match(r.stderr, refused, what);
      assert.deepEqual(lines(witness), [], `${what}: nothing ran, the agent's text least of all`);
    }
  }
});

test("a policy.json value naming the pack folder, a script naming it as $HOME/… or ~/…, or surface.json naming it through JSON escapes is refused too; naming a sibling folder (<folder>2, <folder>ages) is not, and runs", async () => {
  const s = scene();
  const home = String(s.env["HOME"]);
  const witness = join(s.ws, "witness.log");
  const policy = writePack(join(s.ws, "policy"), ["./main.sh"], { "main.sh*": `#!/bin/sh\n${say(witness, "trusted")}` }, { cwd: join(s.ws, "policy") });
  await assert.rejects(trustPack(policy, s.env), /policy\.json \(line 4\) names the pack folder/);
  for (const [i, form] of ['. "$HOME/mine/lib.sh"', ". ${HOME}/mine/lib.sh", ". ~/mine/lib.sh"].entries()) {
    const root = writePack(join(home, "mine"), ["./main.sh"], { "main.sh*": `#!/bin/sh\n${form}\n`, "lib.sh": say(witness, "trusted") });
    // (hcp's own home folder is the scene's: asked of the built hcp.)
    const trust = await s.onTerminal(["trust", root], "[y/N]", "y");
    assert.notEqual(trust.code, 0, `${form}: ${trust.stdout}`);
    assert.match(trust.stdout, /main\.sh \(line 2\) names the pack folder/, form);
    recordedEarlier(root, s);
    const r = await hcp(["run", root, "go"], { env: rewriteAtSpawn(s, join(root, "lib.sh"), say(witness, `evil ${i}`)), timeoutMs: 60_000 });
    assert.equal(r.code, 4, `${form}: ${r.stderr}`);
  }
  // surface.json as JSON escapes it (`\/`): hcp reads the path, so the search does too.
  const escaped = writePack(join(s.ws, "escaped"), ["sh", `${join(s.ws, "escaped")}/run.sh`], { "run.sh": say(witness, "trusted") });
  writeFileSync(join(escaped, "surface.json"), readFileSync(join(escaped, "surface.json"), "utf8").replaceAll("/", "\\/"));
  await assert.rejects(trustPack(escaped, s.env), /surface\.json \(verbs\.go\.cli\[1\]\) names the pack folder/);
  recordedEarlier(escaped, s);
  const r = await hcp(["run", escaped, "go"], { env: rewriteAtSpawn(s, join(escaped, "run.sh"), say(witness, "evil")), timeoutMs: 60_000 });
  assert.equal(r.code, 4, r.stderr);
  assert.deepEqual(lines(witness), []);

  // Siblings: other folders, whose names begin with the pack folder's.
  const root = join(s.ws, "pack");
  for (const sibling of [`${root}2`, `${root}ages`]) {
    mkdirSync(sibling);
    writeFileSync(join(sibling, "lib.sh"), say(witness, `sibling ${sibling.slice(-5)}`));
  }
  writePack(root, ["./main.sh"], { "main.sh*": `#!/bin/sh\n. '${root}2/lib.sh'\n. ${root}ages/lib.sh\n` });
  await trustPack(root, s.env);
  const ok = await s.hcp(["run", root, "go"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(lines(witness), ["sibling pack2", "sibling kages"]);
});

/** The wrap.bin hcp init wrote in the pack at `root`. */
const binOf = (root: string) => (JSON.parse(readFileSync(join(root, "surface.json"), "utf8")) as { wrap: { bin: string } }).wrap.bin;

test("hcp init writes a program inside the pack folder (from --from-exe or --bin) as ./…, so the pack it writes can be trusted", async () => {
  const s = scene();
  const out = join(s.ws, "tool-pack");
  mkdirSync(out);
  writeFileSync(join(out, "tool"), `#!/bin/sh\nexec '${process.execPath}' '${fixture("exe/prints-manifest.mjs")}' "$@"\n`, { mode: 0o755 });
  const made = await hcp(["init", "--from-exe", join(out, "tool"), "--out", out, "--force"], { env: s.env });
  assert.equal(made.code, 0, made.stderr);
  assert.equal(binOf(out), "./tool");
  await trustPack(out, s.env);
  const other = join(s.ws, "bin-pack");
  const bin = await hcp(["init", "--from-exe", join(out, "tool"), "--out", other, "--bin", join(other, "bin", "tool")], { env: s.env });
  assert.equal(bin.code, 0, bin.stderr);
  assert.equal(binOf(other), "./bin/tool");
  // A program outside the pack folder stays as given.
  const outside = join(s.ws, "outside-pack");
  assert.equal((await hcp(["init", "--from-exe", join(out, "tool"), "--out", outside], { env: s.env })).code, 0);
  assert.equal(binOf(outside), join(out, "tool"));
});


/** A trusted pack at `root` whose verb `go` appends to `witness`. */
function plainPack(root: string, witness: string): string {
  return writePack(root, ["./main.sh"], { "main.sh*": `#!/bin/sh\n${say(witness, "ran")}` });
}

test("hcp trust --revoke removes hcp's copies of the folder, and hcp run refuses it again", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = plainPack(join(s.ws, "pack"), witness);
  const other = plainPack(join(s.ws, "other"), witness);
  for (const p of [root, other]) {
    await trustPack(p, s.env);
    assert.equal((await s.hcp(["run", p, "go"])).code, 0);
  }
  assert.equal(readdirSync(copiesDir(s, root)).length, 1);
  const r = await s.hcp(["trust", "--revoke", root]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!existsSync(copiesDir(s, root)), "the copies of the folder are gone");
  assert.equal(readdirSync(copiesDir(s, other)).length, 1, "another folder's copy is kept");
  assert.equal((await s.hcp(["run", root, "go"])).code, 4);
  assert.deepEqual(lines(witness), ["ran", "ran"]);
});

/**
 * `hcp run` killed (SIGKILL) just as it would rename its finished copy into place: the half-made copy it leaves, and
 * its process ID. (A hook preloaded into hcp kills it there: the moment a kill leaves the most behind.)
 */
async function killedWhileCopying(s: Scene, root: string): Promise<string> {
  const hook = join(s.ws, "kill-at-rename.cjs");
  writeFileSync(
    hook,
    `const fs = require("node:fs"); const rename = fs.renameSync;
fs.renameSync = function (from, ...rest) { if (String(from).includes("/.new-")) process.kill(process.pid, "SIGKILL"); return rename.call(this, from, ...rest); };\n`,
  );
  const before = new Set(existsSync(copiesDir(s, root)) ? readdirSync(copiesDir(s, root)) : []);
  const r = await hcp(["run", root, "go"], { env: { ...s.env, NODE_OPTIONS: `--require ${hook}` }, timeoutMs: 60_000 });
  assert.equal(r.code, null, r.stderr);
  // (Its mark of a run from the folder's copies stays too: pack-copy.ts.)
  const left = readdirSync(copiesDir(s, root)).filter((n) => !before.has(n) && !n.startsWith(".run-"));
  assert.equal(left.length, 1, String(left));
  assert.match(left[0]!, /^\.new-/);
  return join(copiesDir(s, root), left[0]!);
}

const minutesAgo = (path: string, minutes: number) => {
  const t = new Date(Date.now() - minutes * 60_000);
  utimesSync(path, t, t);
};

test("a copy left half made by an hcp killed with SIGKILL is removed by a later prune once stale (11 minutes), never while fresh nor while its maker runs; a link planted in packs/ is never followed", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = plainPack(join(s.ws, "pack"), witness);
  await trustPack(root, s.env);
  const stale = await killedWhileCopying(s, root);
  const fresh = await killedWhileCopying(s, root);
  minutesAgo(stale, 11);
  // One as a running hcp would be making it: its maker's process ID is alive (this test's child), however old it is.
  const sleeper = spawn("sleep", ["120"], { stdio: "ignore" });
  // Planted in packs/: links to a folder of the person's, old, where a copy or a folder of copies would be.
  const victim = join(tempDir("hcp-victim-"), "mine");
  mkdirSync(join(victim, "sub"), { recursive: true });
  writeFileSync(join(victim, "sub", "keep.txt"), "mine\n");
  chmodSync(victim, 0o755);
  chmodSync(join(victim, "sub"), 0o755);
  const planted = [join(copiesDir(s, root), "0".repeat(64)), join(s.state, "hcp", "packs", "1".repeat(64))];
  try {
    const live = join(copiesDir(s, root), `.new-${sleeper.pid}-live00`);
    renameSync(await killedWhileCopying(s, root), live);
    minutesAgo(live, 60);
    for (const link of planted) {
      symlinkSync(victim, link);
      const t = new Date(Date.now() - 48 * 3600_000);
      lutimesSync(link, t, t);
    }

    // A later run of another folder makes a new copy, and prunes.
    const other = plainPack(join(s.ws, "other"), witness);
    await trustPack(other, s.env);
    assert.equal((await s.hcp(["run", other, "go"])).code, 0);
    assert.ok(!existsSync(stale), "the stale half-made copy is removed");
    assert.ok(existsSync(fresh), "a fresh one is kept");
    assert.ok(existsSync(live), "one whose maker runs is kept");
  } finally {
    sleeper.kill("SIGKILL");
  }
  // The pack still runs, its copy made anew: a prune of its own folder's copies, where a link was planted, too.
  assert.equal((await s.hcp(["run", root, "go"])).code, 0);
  assert.deepEqual(lines(witness), ["ran", "ran"]);
  assert.equal(statSync(victim).mode & 0o777, 0o755, "the folder a planted link leads to is untouched");
  assert.equal(statSync(join(victim, "sub")).mode & 0o777, 0o755);
  assert.equal(readFileSync(join(victim, "sub", "keep.txt"), "utf8"), "mine\n");
  for (const link of planted) assert.ok(!existsSync(link) || lstatSync(link).isSymbolicLink());
});
