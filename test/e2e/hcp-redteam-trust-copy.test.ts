// Red team: the agent writes a trusted pack's folder after hcp's last check: while its script runs (a file it sources
// late), right after the check (the folder renamed away and replaced), or by a link the copy would follow back to the
// folder. hcp run runs the program from its own verified copy of the trusted folder in the state directory, so what
// runs is what a person trusted, never the agent's.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { asAgentInThisFile, trustPack } from "./helpers.js";
import { hcp } from "../transports/support.js";
import { agentPack, noCredentialIn, scene, type Scene } from "./trust-support.js";

// These tests exercise the trust gate itself: every hcp run here is the agent's alone; a test trusts a pack where a person would.
asAgentInThisFile();

const lines = (witness: string) => (existsSync(witness) ? readFileSync(witness, "utf8").split("\n").filter((l) => l !== "") : []);

/** Waits (hang guard: 30 s) until `ok()`. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (const end = Date.now() + 30_000; !ok(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The copies hcp keeps of the pack folder `root` in the scene's state directory (the real paths of their folders). */
function copiesIn(s: Scene): string[] {
  const packs = join(s.state, "hcp", "packs");
  if (!existsSync(packs)) return [];
  return readdirSync(packs).flatMap((p) => readdirSync(join(packs, p)).map((d) => join(packs, p, d)));
}

/**
 * A pack whose verb `late` runs ./late.sh from the pack folder (policy.json `cwd`): it says where it runs, waits for
 * the file `go` in the workspace, then sources ./lib.sh and reads data.txt next to itself, each writing to `witness`.
 */
function latePack(s: Scene, witness: string): string {
  const root = join(s.ws, "late");
  mkdirSync(root);
  const script = `#!/bin/sh\necho "started $0 $(pwd)" >> '${witness}'\ni=0\nwhile [ ! -e '${join(s.ws, "go")}' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\n. ./lib.sh\ncat "$(dirname "$0")/data.txt" >> '${witness}'\n`;
  writeFileSync(join(root, "late.sh"), script, { mode: 0o755 });
  writeFileSync(join(root, "lib.sh"), `echo "lib: trusted" >> '${witness}'\n`);
  writeFileSync(join(root, "data.txt"), "data: trusted\n");
  const surface = { id: "late", kind: "wrap", binding: { mode: "local", hub: "none" }, wrap: { bin: "./late.sh" }, verbs: { late: { description: "Runs late.", cli: ["late"], policy: "read" } } };
  writeFileSync(join(root, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "late", default: "read", cwd: "." }));
  return root;
}

test("a file a trusted script sources late, rewritten by the agent while the script runs: the run reads the trusted text, from hcp's copy", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = latePack(s, witness);
  await trustPack(root, s.env);
  const running = s.hcp(["run", root, "late"]);
  await until(() => lines(witness).length > 0, "the script to start");
  // The agent, while the trusted script waits: the file it sources and the file it reads, rewritten in place.
  writeFileSync(join(root, "lib.sh"), `echo "lib: evil" >> '${witness}'\n`);
  writeFileSync(join(root, "data.txt"), "data: evil\n");
  writeFileSync(join(s.ws, "go"), "");
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  const [started, ...rest] = lines(witness);
  assert.deepEqual(rest, ["lib: trusted", "data: trusted"], "the run read the trusted text only");
  // It ran from the copy in the state directory, in the copy (policy.json cwd "." is the pack folder).
  const [copy] = copiesIn(s);
  assert.ok(copy !== undefined && copy.startsWith(join(s.state, "hcp", "packs")), String(copiesIn(s)));
  assert.equal(started, `started ${join(copy, "late.sh")} ${copy}`);
  // The agent's edit is a change of the pack like any other: the next run is refused and nothing runs.
  const again = await s.hcp(["run", root, "late"]);
  assert.equal(again.code, 4, again.stderr);
  assert.match(again.stderr, /it changed since a person trusted it \(data\.txt, lib\.sh\)/);
  assert.equal(lines(witness).length, 3);
});

/** The agent's copy of the pack in `evil`: the same surface.json and policy.json, its own dump.sh. */
function agentCopy(root: string, evil: string, witness: string): void {
  agentPack(evil, witness);
  for (const f of ["surface.json", "policy.json", "HARNESS.md"]) writeFileSync(join(evil, f), readFileSync(join(root, f)));
  writeFileSync(join(evil, "dump.sh"), `#!/bin/sh\necho evil >> '${witness}'\n`, { mode: 0o755 });
}

test("the trusted folder renamed away and replaced by the agent's after hcp's check (by an approver before it approves; in the instant before the program starts): the agent's program never runs", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "helper", default: "read", verbs: { dump: { policy: "read", confirm: true } } }));
  const evil = join(s.ws, "evil");
  agentCopy(root, evil, witness);
  await trustPack(root, s.env);

  // A listed approver that, before it approves, renames the trusted folder away and the agent's in its place.
  const approver = join(s.ws, "swap-approve.sh");
  writeFileSync(approver, `#!/bin/sh\ncat > /dev/null\nmv '${root}' '${root}.away'\nmv '${evil}' '${root}'\nexit 0\n`, { mode: 0o755 });
  const config = String(s.env["XDG_CONFIG_HOME"]);
  mkdirSync(join(config, "hcp"), { recursive: true });
  writeFileSync(join(config, "hcp", "approvers"), `${approver}\n`, { mode: 0o600 });
  const r = await s.hcp(["run", root, "dump", "--approver", approver]);
  assert.equal(r.code, 4, r.stdout + r.stderr);
  assert.deepEqual(lines(witness), [], "neither program ran");
  noCredentialIn(r.stdout + r.stderr);
  // Back in place: the trusted folder runs (from the copy), the agent's not.
  renameSync(root, evil);
  renameSync(`${root}.away`, root);
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "helper", default: "read" }));
  await trustPack(root, s.env);
  const ok = await s.hcp(["run", root, "dump"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(lines(witness), ["ran"]);

  // The agent's swap landing in the instant between hcp's last check and the program's start, made certain: a hook
  // preloaded into hcp swaps the folders just before hcp starts the program. (A test device only: an agent that sets
  // hcp's environment runs its own code inside hcp anyway, SECURITY.md says so.)
  const hook = join(s.ws, "swap-at-spawn.cjs");
  writeFileSync(
    hook,
    `const cp = require("node:child_process"); const fs = require("node:fs"); const spawn = cp.spawn;
cp.spawn = function (file, ...rest) {
  if (String(file).endsWith("/dump.sh")) { fs.renameSync(${JSON.stringify(root)}, ${JSON.stringify(`${root}.away`)}); fs.renameSync(${JSON.stringify(evil)}, ${JSON.stringify(root)}); }
  return spawn.call(this, file, ...rest);
};\n`,
  );
  const raced = await hcp(["run", root, "dump"], { env: { ...s.env, NODE_OPTIONS: `--require ${hook}` }, timeoutMs: 60_000 });
  assert.equal(raced.code, 0, raced.stderr);
  assert.ok(existsSync(join(root, "dump.sh")) && readFileSync(join(root, "dump.sh"), "utf8").includes("evil"), "the agent's folder was in place when the program started");
  assert.deepEqual(lines(witness), ["ran", "ran"], "the trusted script ran, from hcp's copy; the agent's never");
});


test("a link in the pack leading back into its folder by an absolute path (directly, through a link outside, to a folder holding it, / included, or climbing out by .. through its own links) cannot be trusted: hcp trust and hcp run name the link; a relative link inside, or a program named through a link outside into the folder, runs from the copy", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  const surface = JSON.parse(readFileSync(join(root, "surface.json"), "utf8")) as { wrap: { bin: string } };
  surface.wrap.bin = "./run.sh";
  writeFileSync(join(root, "surface.json"), JSON.stringify(surface));
  mkdirSync(join(root, "d"));
  symlinkSync("..", join(root, "d", "top"));
  symlinkSync(root, join(s.ws, "alias"));
  const climbs = `d/top/${"../".repeat(root.split("/").length + 2)}${root.slice(1)}/dump.sh`;
  for (const target of [join(root, "dump.sh"), join(s.ws, "alias", "dump.sh"), s.ws, climbs, "../helper/dump.sh"]) {
    symlinkSync(target, join(root, "run.sh"));
    await assert.rejects(trustPack(root, s.env), /the link run\.sh/);
    const refused = await s.onTerminal(["trust", root], "[y/N]", "y");
    assert.notEqual(refused.code, 0, refused.stdout);
    assert.ok(refused.stdout.includes(`the link run.sh (to ${target})`), refused.stdout);
    const r = await s.hcp(["run", root, "dump"]);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /what it runs cannot be bound: the link run\.sh/);
    assert.deepEqual(lines(witness), [], target);
    rmSync(join(root, "run.sh"));
  }
  // Relative and inside (through the folder's own link d/top, too): the copy's link leads to the copy's file.
  symlinkSync("d/top/dump.sh", join(root, "run.sh"));
  await trustPack(root, s.env);
  writeFileSync(join(root, "dump.sh"), readFileSync(join(root, "dump.sh"), "utf8").replace("echo ran", 'echo "ran $(readlink -f "$0")"'));
  await trustPack(root, s.env);
  const ok = await s.hcp(["run", root, "dump"]);
  assert.equal(ok.code, 0, ok.stderr);
  const [copy] = copiesIn(s);
  assert.deepEqual(lines(witness), [`ran ${join(String(copy), "dump.sh")}`]);
  // The program named by a path through a link outside that leads into the folder runs from the copy too.
  surface.wrap.bin = join(s.ws, "alias", "dump.sh");
  writeFileSync(join(root, "surface.json"), JSON.stringify(surface));
  await trustPack(root, s.env);
  const aliased = await s.hcp(["run", root, "dump"]);
  assert.equal(aliased.code, 0, aliased.stderr);
  assert.match(String(lines(witness)[1]), new RegExp(`^ran ${s.state}/hcp/packs/[0-9a-f]{64}/[0-9a-f]{64}/dump\\.sh$`));
  // A link beside the program to `/` (or `//`), which holds every folder: a trusted script reaching
  // `$(dirname "$0")/up/<the pack folder>/…` from the copy would read the folder the agent rewrites.
  for (const target of ["/", "//"]) {
    symlinkSync(target, join(root, "up"));
    await assert.rejects(trustPack(root, s.env), new RegExp(`the link up \\(to ${target}\\) leads back into the pack folder \\(or to a folder holding it\\)`));
    const r = await s.hcp(["run", root, "dump"]);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /what it runs cannot be bound: the link up/);
    rmSync(join(root, "up"));
  }
  assert.equal(lines(witness).length, 2, "nothing ran past the links");
});

test("hcp's copy is read-only in the state directory and reused; the plan and audit show the pack's own paths; an edit of the folder still makes hcp run refuse; hcp exec makes no copy", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  // The script tries to write into its own folder: in the copy it cannot.
  // A write, so that the audit log records it.
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "helper", default: "read", verbs: { dump: "write" } }));
  const writer = `#!/bin/sh\necho ran >> '${witness}'\nif touch "$(dirname "$0")/scratch" 2>/dev/null; then echo wrote >> '${witness}'; fi\n`;
  writeFileSync(join(root, "dump.sh"), writer, { mode: 0o755 });
  await trustPack(root, s.env);
  const first = await s.hcp(["run", root, "dump", "--allow-write", "--json"]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal((JSON.parse(first.stdout) as { argv: string[] }).argv[0], join(root, "dump.sh"), "the result names the pack's program");
  const [copy, ...more] = copiesIn(s);
  assert.ok(copy !== undefined && more.length === 0, String(copiesIn(s)));
  assert.equal(statSync(join(s.state, "hcp", "packs")).mode & 0o077, 0, "the copies are private");
  for (const p of [copy, join(copy, "dump.sh"), join(copy, "surface.json")]) assert.equal(statSync(p).mode & 0o222, 0, `${p} is read-only`);
  assert.equal(readFileSync(join(copy, "dump.sh"), "utf8"), readFileSync(join(root, "dump.sh"), "utf8"));
  const inode = statSync(copy).ino;
  const second = await s.hcp(["run", root, "dump", "--allow-write"]);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(statSync(copy).ino, inode, "the second run reused the copy");
  assert.deepEqual(copiesIn(s), [copy]);
  // Permissions do not hold back root, which writes anywhere (it could write the trust records too).
  const wrote = process.getuid?.() === 0 ? ["wrote"] : [];
  assert.deepEqual(lines(witness), ["ran", ...wrote, "ran", ...wrote], "the script could not write into its folder");
  const audit = readFileSync(s.audit, "utf8");
  assert.ok(audit.includes(JSON.stringify(join(root, "dump.sh"))) && !audit.includes(join(s.state, "hcp", "packs")), audit);

  writeFileSync(join(root, "dump.sh"), `#!/bin/sh\necho evil >> '${witness}'\n`, { mode: 0o755 });
  const edited = await s.hcp(["run", root, "dump", "--allow-write"]);
  assert.equal(edited.code, 4, edited.stderr);
  assert.match(edited.stderr, /it changed since a person trusted it \(dump\.sh\)/);
  assert.deepEqual(lines(witness), ["ran", ...wrote, "ran", ...wrote]);

  // hcp exec needs no trust and runs the folder as it is: no copy, its working files where they were.
  const fresh = scene();
  const other = agentPack(join(fresh.ws, "helper"), witness);
  writeFileSync(join(other, "dump.sh"), writer, { mode: 0o755 });
  const exec = await hcp(["exec", other], { env: fresh.env, stdin: JSON.stringify({ id: 1, pack: "helper", verb: "dump", args: {} }) + "\n" });
  assert.equal(exec.code, 0, exec.stderr);
  assert.match(exec.stdout, /"exit_code":0/);
  assert.deepEqual(lines(witness).slice(-2), ["ran", "wrote"], "hcp exec ran the folder itself, which it can write");
  assert.ok(existsSync(join(other, "scratch")));
  assert.deepEqual(copiesIn(fresh), []);
});
