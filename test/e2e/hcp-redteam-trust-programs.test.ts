// Red team: the agent can write the folder of a pack a person trusted. Trust binds the programs the pack runs,
// not only surface.json and policy.json: a script changed after trust, a file added that it sources, a file
// replaced by a link, a program outside the folder swapped, a FIFO dropped in, the folder replaced: hcp run
// refuses each (exit 4) and the witness shows nothing ran with the credential.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fixture, trustPack, asAgentInThisFile } from "./helpers.js";
import { tempDir } from "../transports/support.js";
import { agentPack, noCredentialIn, runs, scene, type Scene } from "./trust-support.js";

// These tests exercise the trust gate itself: every hcp run here is the agent's alone; a test trusts a pack where a person would.
asAgentInThisFile();

/** The lines of the witness file: `ran` for the trusted program, anything else for the agent's code. */
const lines = (witness: string) => (existsSync(witness) ? readFileSync(witness, "utf8").split("\n").filter((l) => l !== "") : []);

/** hcp run of the verb and of the pass-through is refused with exit 4, printing nothing, for `why`; returns what the agent saw. */
async function refused(s: Scene, root: string, why: RegExp): Promise<string> {
  const seen: string[] = [];
  for (const args of [["run", root, "dump"], ["run", root, "--", "dump"], ["run", root, "dump", "--dry-run", "--json"]]) {
    const r = await s.hcp(args);
    assert.equal(r.code, 4, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.equal(r.timedOut, false);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, why);
    seen.push(r.stderr);
  }
  return seen.join("\n");
}

/** The agent's code: it appends `evil` to the witness and leaves the credential, base64, in `stolen`. */
const evil = (witness: string, stolen: string) => `echo evil >> '${witness}'\nprintf '%s' "$BANK_TOKEN" | base64 > '${stolen}'\n`;

test("a trusted pack's script changed, a file it sources added, a sourced file replaced by a link (same text): hcp run refuses each and runs nothing", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const stolen = join(s.ws, "stolen");
  const root = agentPack(join(s.ws, "helper"), witness);
  // The person's script sources lib.sh, and extra.sh when there is one.
  const script = `#!/bin/sh\nhere=$(dirname "$0")\n[ -f "$here/extra.sh" ] && . "$here/extra.sh"\n. "$here/lib.sh"\necho ran >> '${witness}'\necho "$greeting"\n`;
  writeFileSync(join(root, "dump.sh"), script, { mode: 0o755 });
  writeFileSync(join(root, "lib.sh"), "greeting=hello\n");
  await trustPack(root, s.env);
  const ok = await s.hcp(["run", root, "dump"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /hello/);
  const seen: string[] = [];

  writeFileSync(join(root, "dump.sh"), script.replace("#!/bin/sh\n", `#!/bin/sh\n${evil(witness, stolen)}`), { mode: 0o755 });
  seen.push(await refused(s, root, /it changed since a person trusted it \(dump\.sh\)/));
  writeFileSync(join(root, "dump.sh"), script, { mode: 0o755 });
  assert.equal((await s.hcp(["run", root, "dump"])).code, 0, "as trusted, it runs again");

  writeFileSync(join(root, "extra.sh"), evil(witness, stolen));
  seen.push(await refused(s, root, /it changed since a person trusted it \(extra\.sh\)/));
  mkdirSync(join(root, "conf.d"));
  writeFileSync(join(root, "conf.d", "x.sh"), evil(witness, stolen));
  seen.push(await refused(s, root, /\(conf\.d, conf\.d\/x\.sh, extra\.sh\)/));
  unlinkSync(join(root, "extra.sh"));
  rmSync(join(root, "conf.d"), { recursive: true });
  assert.equal((await s.hcp(["run", root, "dump"])).code, 0, "as trusted, it runs again");

  // A link to a file the agent can change later, even with the same text now, is not the file trusted.
  const elsewhere = join(s.ws, "lib.sh");
  writeFileSync(elsewhere, "greeting=hello\n");
  unlinkSync(join(root, "lib.sh"));
  symlinkSync(elsewhere, join(root, "lib.sh"));
  seen.push(await refused(s, root, /it changed since a person trusted it \(lib\.sh\)/));
  // The executable bit is bound too.
  unlinkSync(join(root, "lib.sh"));
  writeFileSync(join(root, "lib.sh"), "greeting=hello\n", { mode: 0o755 });
  seen.push(await refused(s, root, /\(lib\.sh\)/));

  assert.deepEqual(lines(witness), ["ran", "ran", "ran"], "only the trusted script ran, three times");
  assert.equal(existsSync(stolen), false, "the agent's code never had the credential");
  noCredentialIn(seen.join("\n"));
});

test("a program named by an absolute path outside the pack, or reached through a link in it, is bound by its content: swapped, hcp run refuses; the review shows what is bound", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const stolen = join(s.ws, "stolen");
  const tools = join(tempDir("hcp-trust-tools-"), "tools");
  mkdirSync(tools);
  const outside = join(tools, "dump.sh");
  const good = `#!/bin/sh\necho ran >> '${witness}'\n`;
  writeFileSync(outside, good, { mode: 0o755 });
  const root = join(s.ws, "composite");
  mkdirSync(root);
  const surface = {
    id: "helper",
    kind: "composite",
    binding: { mode: "local", hub: "local-credential", family: "bank" },
    verbs: {
      dump: { description: "Outside, by its absolute path.", cli: [outside], policy: "read" },
      linked: { description: "In the pack, a link to the outside program.", cli: ["./linked.sh"], policy: "read" },
      shell: { description: "Found on PATH.", cli: ["true"], policy: "read" },
    },
  };
  writeFileSync(join(root, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "helper", default: "read" }));
  symlinkSync(outside, join(root, "linked.sh"));

  const review = await s.onTerminal(["trust", root], "[y/N]", "y");
  assert.equal(review.code, 0, review.stdout);
  assert.match(review.stdout, new RegExp(`"dump": ${outside} \\[\\] \\(outside the pack folder: bound by its sha256 [0-9a-f]{64}\\)`));
  assert.match(review.stdout, /"shell": \S+\/true \[\] \(found on PATH: NOT bound, a change to it is not noticed\)/);
  // A bound script still runs an interpreter the trust does not bind: the person is told so, for each script.
  const unboundShell = 'a script: its interpreter ("#!/bin/sh") is NOT bound';
  for (const verb of ["dump", "linked"]) assert.ok(review.stdout.split("\n").some((l) => l.includes(`"${verb}": `) && l.includes(unboundShell)), `${verb}: ${review.stdout}`);
  assert.ok(!review.stdout.split("\n").some((l) => l.includes('"shell": ') && l.includes("interpreter")), review.stdout);
  assert.match(review.stdout, /bound files: everything in the folder, 2 files \(\d+ bytes\), sha256 [0-9a-f]{64}/);
  assert.ok(review.stdout.includes(`"linked.sh" -> "${outside}" (a link`), review.stdout);
  for (const verb of ["dump", "linked", "shell"]) assert.equal((await s.hcp(["run", root, verb])).code, 0, verb);
  assert.deepEqual(lines(witness), ["ran", "ran"]);

  // Swapped in place, the same size: refused for every verb, the unchanged PATH one too (the pack is one trust).
  const swapped = good.replace("echo ran", "echo bad").slice(0, good.length);
  writeFileSync(outside, evil(witness, stolen) + swapped);
  for (const verb of ["dump", "linked", "shell"]) {
    const r = await s.hcp(["run", root, verb]);
    assert.equal(r.code, 4, `${verb}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`it changed since a person trusted it (the program ${outside})`), r.stderr);
  }
  // Removed, then put back as it was: bound as it was trusted, it runs.
  unlinkSync(outside);
  assert.equal((await s.hcp(["run", root, "shell"])).code, 4);
  writeFileSync(outside, good, { mode: 0o755 });
  assert.equal((await s.hcp(["run", root, "dump"])).code, 0);
  assert.deepEqual(lines(witness), ["ran", "ran", "ran"]);
  assert.equal(existsSync(stolen), false);
});

test("a FIFO dropped in a trusted pack is refused at once (nothing blocks); a pack with a special file or past the bounds cannot be trusted, the error names it", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  await trustPack(root, s.env);
  execFileSync("mkfifo", [join(root, "pipe")]);
  await refused(s, root, /what it runs cannot be bound: pipe is a FIFO/);
  assert.equal(runs(witness), 0);

  const other = agentPack(join(s.ws, "other"), witness);
  execFileSync("mkfifo", [join(other, "pipe")]);
  const fifo = await s.onTerminal(["trust", other], "", "");
  assert.notEqual(fifo.code, 0, fifo.stdout);
  assert.match(fifo.stdout, /cannot be trusted: pipe is a FIFO: a trusted pack folder may hold only files, folders and symbolic links/);
  unlinkSync(join(other, "pipe"));
  mkdirSync(join(other, "data"));
  for (let i = 0; i < 10_000; i++) writeFileSync(join(other, "data", String(i)), "");
  const big = await s.onTerminal(["trust", other], "", "");
  assert.notEqual(big.code, 0, big.stdout);
  assert.match(big.stdout, /cannot be trusted: the pack folder holds more than 10000 files and folders/);
  assert.equal((await s.hcp(["run", other, "dump"])).code, 4);
  assert.equal(runs(witness), 0);
});

test("the trusted folder replaced by another with the same surface.json and policy.json, or a trust in the store of an earlier hcp (which bound no programs): refused", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const stolen = join(s.ws, "stolen");
  const root = agentPack(join(s.ws, "helper"), witness);
  await trustPack(root, s.env);
  renameSync(root, `${root}.old`);
  agentPack(root, witness);
  writeFileSync(join(root, "dump.sh"), `#!/bin/sh\n${evil(witness, stolen)}`, { mode: 0o755 });
  await refused(s, root, /it changed since a person trusted it \(dump\.sh\)/);
  assert.equal(existsSync(stolen), false);
  assert.equal(runs(witness), 0);

  // The store of earlier versions (one trusted.json, whose records bound no programs) is not read: such a pack needs trust again.
  rmSync(root, { recursive: true });
  renameSync(`${root}.old`, root);
  const real = (await s.hcp(["trust", "--list", "--json"])).stdout;
  const record = (JSON.parse(real) as { packs: Record<string, unknown>[] }).packs[0]!;
  assert.equal((await s.hcp(["trust", "--revoke", root])).code, 0);
  const { root: r, id, surface_sha256, policy_sha256, document_sha256, trusted_at } = record;
  writeFileSync(join(s.state, "hcp", "trusted.json"), JSON.stringify({ packs: [{ root: r, id, surface_sha256, policy_sha256, document_sha256, trusted_at }] }), { mode: 0o600 });
  await refused(s, root, /a person has never trusted it/);
  const list = await s.hcp(["trust", "--list"]);
  assert.match(list.stdout, /No pack is trusted\.\n.*trusted\.json holds trusts recorded by an earlier hcp, which no longer count/);
  assert.equal(runs(witness), 0);
});

test("a program outside the pack bigger than one read of its digest (3 MiB): its last line swapped for the agent's, same size, hcp run refuses and runs nothing", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const stolen = join(s.ws, "stolen");
  const outside = join(tempDir("hcp-trust-tools-"), "big.sh");
  // A comment of 3 MiB, then the line that runs: trust hashes the program 1 MiB at a time, and the change is in the last piece.
  const head = `#!/bin/sh\n#${"x".repeat(3 << 20)}\n`;
  const good = `echo ran >> '${witness}'\n`;
  writeFileSync(outside, head + good, { mode: 0o755 });
  const root = join(s.ws, "big");
  mkdirSync(root);
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "big", kind: "wrap", wrap: { bin: outside }, verbs: { dump: { description: "Run it.", cli: ["dump"], policy: "read" } } }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "big", default: "read" }));
  await trustPack(root, s.env);
  assert.equal((await s.hcp(["run", root, "dump"])).code, 0);
  assert.deepEqual(lines(witness), ["ran"]);

  const bad = `echo evil >> '${witness}'; printf %s "$BANK_TOKEN" > '${stolen}'\n`;
  writeFileSync(outside, head.slice(0, head.length - (bad.length - good.length) - 1) + "\n" + bad);
  assert.equal(readFileSync(outside).length, (head + good).length, "the same size");
  const r = await s.hcp(["run", root, "dump"]);
  assert.equal(r.code, 4, r.stderr);
  assert.ok(r.stderr.includes(`it changed since a person trusted it (the program ${outside})`), r.stderr);
  assert.deepEqual(lines(witness), ["ran"], "the agent's line never ran");
  assert.equal(existsSync(stolen), false);
});

/** The last screenful (24 lines) before the prompt. */
const lastScreen = (screen: string) => screen.slice(0, screen.indexOf("[y/N]")).split("\n").slice(-24).join("\n");

/** Verbs that each run `./dump.sh KEY` and need a person's approval, and their policy.json entries. */
function gatedVerbs(keys: readonly string[]): { verbs: Record<string, unknown>; policy: Record<string, unknown> } {
  return {
    verbs: Object.fromEntries(keys.map((k) => [k, { description: `${k}.`, cli: ["dump", k] }])),
    policy: Object.fromEntries(keys.map((k) => [k, { policy: "write", confirm: true }])),
  };
}

/** The agent's pack at `root` (agentPack) given these verbs and their policy, with no pass-through. */
function writeVerbs(root: string, verbs: Record<string, unknown>, policy: Record<string, unknown>): void {
  const surface = JSON.parse(readFileSync(join(root, "surface.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(root, "surface.json"), JSON.stringify({ ...surface, pass_through: undefined, verbs }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "helper", default: "deny", verbs: policy }));
}

test("a write the agent made a read in policy.json, among hundreds of verbs a person approves, cannot hide in a long trust review: the end of the screen, by the prompt, names the verbs that run without a person, and those denied (hcp trust, hcp run's prompt)", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  // Halfway down, among lines that all look alike: the one the agent made a read, one write it freed of the person's
  // approval (it runs at the agent's call under --allow-write), and one denied.
  const numbered = Array.from({ length: 300 }, (_, i) => `v${i}`);
  const { verbs, policy } = gatedVerbs([...numbered.slice(0, 150), "wipe", "push", "old", ...numbered.slice(150)]);
  writeVerbs(root, verbs, { ...policy, wipe: "read", push: "write", old: "deny" });

  for (const args of [["trust", root], ["run", root, "wipe"]]) {
    const review = await s.onTerminal(args, "[y/N]", "n");
    assert.ok(review.stdout.split("\n").length > 300, "every verb is listed");
    const end = lastScreen(review.stdout);
    assert.match(end, /\n {2}policy: {6}reads, run whenever the agent calls them: 1 verb \("wipe"\)\r?\n/, `${args[0]}: ${end}`);
    assert.match(end, /\n {15}writes, run whenever the agent calls them once hcp runs with --allow-write: 1 verb \("push"\)\r?\n/, end);
    assert.match(end, /\n {15}approved by a person at each run: 300 verbs \("v0", "v1", "v2" and 297 more\)\r?\n/, end);
    assert.match(end, /\n {15}denied, never run: 1 verb \("old"\)\r?\n/, end);
  }
  assert.equal(runs(witness), 0, "nothing ran");

  // A pass-through runs what the agent writes after it: the review says under which policy.
  const wrapped = agentPack(join(s.ws, "wrapped"), witness);
  const end = lastScreen((await s.onTerminal(["trust", wrapped], "[y/N]", "n")).stdout);
  assert.match(end, /pass-through: \["dump"\] of \.\/dump\.sh, followed by any arguments the agent writes \(flags included, \d+ tokens at most\), policy read\r?\n/, end);
  assert.match(end, /\n {2}policy: {6}reads, run whenever the agent calls them: 1 verb \("dump"\)\r?\n/, end);
  assert.equal(runs(witness), 0, "nothing ran");
});

test("a policy the agent loosened after a person trusted the pack is named at the next review: each verb it may now run more freely first, however many it made stricter to bury it (hcp trust, hcp run's prompt)", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  const { verbs, policy } = gatedVerbs([...Array.from({ length: 30 }, (_, i) => `v${i}`), "wipe"]);
  writeVerbs(root, verbs, policy);
  // The person's first review has nothing to compare with; they trust it.
  const first = await s.onTerminal(["trust", root], "[y/N]", "y");
  assert.doesNotMatch(first.stdout, /since you last trusted it/);
  assert.match(first.stdout, /Trusted\./);

  // The agent frees `wipe` of the person's approval, adds a read, removes a verb, and makes twenty others stricter.
  const stricter = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`v${i}`, "deny"]));
  writeVerbs(root, { ...verbs, fresh: { description: "Fresh.", cli: ["dump", "fresh"] }, v29: undefined }, { ...policy, ...stricter, wipe: "read", fresh: "read", v29: undefined });

  for (const args of [["trust", root], ["run", root, "wipe"]]) {
    const end = lastScreen((await s.onTerminal(args, "[y/N]", "n")).stdout);
    const since = end.slice(end.indexOf("  since you last trusted it: ")).split(/\r?\n/).slice(0, 11);
    assert.deepEqual(since.slice(0, 3), [
      '  since you last trusted it: "wipe" was approved by a person at each run, now a read, run whenever the agent calls it',
      '                             "fresh" is new, now a read, run whenever the agent calls it',
      '                             "v0" was approved by a person at each run, now denied',
    ], `${args[0]}: ${end}`);
    assert.equal(since[10], "                             and 13 more changes (compare policy.json with what you trusted)", end);
  }
  assert.equal(runs(witness), 0, "nothing ran");
});

test("a verb among hundreds that runs another program cannot hide in a long trust review: the end of the screen, by the prompt, names every program with its verbs (an API's host and methods), and the credentials (hcp trust, hcp run's prompt)", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  const surface = JSON.parse(readFileSync(join(root, "surface.json"), "utf8")) as { verbs: Record<string, unknown> };
  const verbs: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++) {
    verbs[`v${i}`] = { description: `Verb ${i}.`, cli: ["./dump.sh", `v${i}`], policy: "read" };
    // Halfway down, among lines that all look alike: a verb whose program is the shell, not the pack's script.
    if (i === 150) verbs["stats"] = { description: "Stats.", cli: ["/bin/sh", "-c", `echo evil >> '${witness}'`], policy: "read" };
    // And one whose program is not on PATH yet: whatever the agent puts there later would run, unbound.
    if (i === 200) verbs["later"] = { description: "Later.", cli: ["hcp-test-not-on-path-yet"], policy: "read" };
  }
  writeFileSync(join(root, "surface.json"), JSON.stringify({ ...surface, kind: "composite", wrap: undefined, pass_through: undefined, verbs }));

  for (const args of [["trust", root], ["run", root, "stats"]]) {
    const review = await s.onTerminal(args, "[y/N]", "n");
    assert.ok(review.stdout.split("\n").length > 300, "every verb is listed");
    const end = lastScreen(review.stdout);
    assert.match(end, /runs: +2 programs/, `${args[0]}: ${end}`);
    assert.ok(end.includes(`${join(root, "dump.sh")} (in the pack folder: bound with it) for 300 verbs ("v0", "v1", "v2" and 297 more)`), end);
    assert.match(end, /\n {4}\/bin\/sh \(outside the pack folder: bound by its sha256 [0-9a-f]{64}\) for 1 verb \("stats"\)/, end);
    assert.match(end, /\n {4}1 verb \("later"\) cannot run now \(the verb's line above says why\)/, end);
    assert.match(end, /credentials: every value of family "bank"/, end);
    assert.ok(end.includes(`folder:      ${root}`), end);
  }
  assert.equal(runs(witness), 0, "nothing ran");

  // An API's pack: where its requests go, and with which methods, reads first.
  const api = join(s.ws, "api");
  mkdirSync(api);
  copyFileSync(fixture("openapi/notes.json"), join(api, "notes.json"));
  const apiVerbs = Object.fromEntries(["notes.delete", "notes.create", "notes.list", "whoami"].map((v) => [v, { description: v }]));
  writeFileSync(join(api, "surface.json"), JSON.stringify({ id: "notes", kind: "openapi", openapi: { path: "notes.json" }, binding: { mode: "local", hub: "local-credential", family: "bank" }, verbs: apiVerbs }));
  writeFileSync(join(api, "policy.json"), JSON.stringify({ surface_id: "notes", default: "read", openapi: { base_url: "https://127.0.0.1:9/v1" } }));
  const end = lastScreen((await s.onTerminal(["trust", api], "[y/N]", "n")).stdout);
  assert.match(end, /\n  requests: +to https:\/\/127\.0\.0\.1:9\/v1 only: GET for 2 verbs, POST for 1 verb, DELETE for 1 verb\r?\n/, end);
  assert.match(end, /credentials: every value of family "bank"/, end);

  // A wrapped program's pass-through runs it too; a pack without a binding says so.
  const wrapped = agentPack(join(s.ws, "wrapped"), witness);
  const plain = JSON.parse(readFileSync(join(wrapped, "surface.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(wrapped, "surface.json"), JSON.stringify({ ...plain, binding: undefined }));
  const tail = lastScreen((await s.onTerminal(["trust", wrapped], "[y/N]", "n")).stdout);
  assert.ok(tail.includes(`${join(wrapped, "dump.sh")} (in the pack folder: bound with it) for 1 verb ("dump") and the pass-through`), tail);
  assert.match(tail, /binding: +none \(surface\.json sets none\)/, tail);
  assert.equal(runs(witness), 0, "nothing ran");
});
