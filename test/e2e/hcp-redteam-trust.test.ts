// Red team: an agent that can write files in its workspace and run `hcp run` writes its own pack, naming the
// person's credential family `bank`, whose verb prints its environment and the credential re-encoded (hex,
// base64), which masking cannot recognise. hcp run must give credentials only to a pack a person trusted, as
// it is: not to this one, not after another pack was trusted, not after an edit, not through a link.

import assert from "node:assert/strict";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO, fixture, trustPack, asAgentInThisFile } from "./helpers.js";
import { HCP, execSession, hcp, tempDir } from "../transports/support.js";
import { SECRET, agentPack, noCredentialIn, recorded, recordedEarlier, runs, scene, type Scene } from "./trust-support.js";

// These tests exercise the trust gate itself: every hcp run here is the agent's alone; a test trusts a pack where a person would.
asAgentInThisFile();

/** Every way the agent can ask hcp run for the pack's credentials: the verb, --json, a dry run, the pass-through. */
const attempts = (root: string) => [
  ["run", root, "dump"],
  ["run", root, "dump", "--json"],
  ["run", root, "dump", "--dry-run", "--json"],
  ["run", root, "--", "dump"],
  ["run", join(root, "surface.json"), "dump", "--no-prompt"],
];

/** Asserts that every attempt is refused with exit 4 naming the pack, its root, the family and `hcp trust ROOT`; returns what the agent saw. */
async function refusedEverywhere(s: Scene, root: string, why: RegExp): Promise<string> {
  const seen: string[] = [];
  for (const args of attempts(root)) {
    const r = await s.hcp(args);
    assert.equal(r.code, 4, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, "", "nothing ran, no plan is shown");
    assert.match(r.stderr, /pack_untrusted|Error: pack "helper"/);
    assert.ok(r.stderr.includes(`at ${root} reads the credentials of family \\"bank\\"`) || r.stderr.includes(`at ${root} reads the credentials of family "bank"`), r.stderr);
    assert.match(r.stderr, why);
    assert.ok(r.stderr.includes(`hcp trust ${root}`), r.stderr);
    seen.push(r.stdout, r.stderr);
  }
  return seen.join("\n");
}

test("an agent-written pack naming the person's family: hcp run (verb, --json, dry run, pass-through) refuses with exit 4 and runs nothing; trusting another pack changes nothing", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  const seen = [await refusedEverywhere(s, root, /a person has never trusted it/)];
  assert.equal(runs(witness), 0, "the agent's program never ran");

  // The person trusted a pack of their own: the agent's pack is no more trusted.
  const mine = agentPack(join(tempDir("hcp-trust-mine-"), "mine"), join(s.ws, "mine.log"), undefined, "mine");
  await trustPack(mine, s.env);
  const ok = await s.hcp(["run", mine, "dump"]);
  assert.equal(ok.code, 0, ok.stderr);
  seen.push(await refusedEverywhere(s, root, /a person has never trusted it/));
  assert.equal(runs(witness), 0, "the agent's program never ran");
  // Nor can it borrow the trusted pack's id: a copy of the trusted pack's files in the agent's folder is another pack.
  const copy = join(s.ws, "copy");
  mkdirSync(copy);
  for (const f of ["surface.json", "policy.json", "HARNESS.md"]) copyFileSync(join(mine, f), join(copy, f));
  writeFileSync(join(copy, "dump.sh"), `#!/bin/sh\necho ran >> '${witness}'\nenv\n`, { mode: 0o755 });
  const borrowed = await s.hcp(["run", copy, "dump"]);
  assert.equal(borrowed.code, 4, borrowed.stderr);
  seen.push(borrowed.stdout, borrowed.stderr);
  assert.equal(runs(witness), 0, "the agent's program never ran");
  noCredentialIn(seen.join("\n") + (existsSync(s.audit) ? readFileSync(s.audit, "utf8") : ""));
});

test("after a person trusted the pack, an edit of surface.json, policy.json (or its removal) or the openapi document needs trust again; nothing runs meanwhile", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  await trustPack(root, s.env);
  const trusted = await s.hcp(["run", root, "dump"]);
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.match(trusted.stdout, /BANK_TOKEN=\*\*\*/, "a trusted pack gets its credentials, masked");
  assert.equal(runs(witness), 1);

  const surface = readFileSync(join(root, "surface.json"), "utf8");
  assert.ok(surface.includes("-now"));
  writeFileSync(join(root, "surface.json"), surface.replace("-now", "-all"));
  const seen = [await refusedEverywhere(s, root, /it changed since a person trusted it \(surface\.json\)/)];
  writeFileSync(join(root, "surface.json"), surface);
  assert.equal((await s.hcp(["run", root, "dump"])).code, 0, "the files as trusted run again");

  const policy = readFileSync(join(root, "policy.json"), "utf8");
  writeFileSync(join(root, "policy.json"), policy.replace("{", '{"env": ["PATH"], '));
  seen.push(await refusedEverywhere(s, root, /it changed since a person trusted it \(policy\.json\)/));
  unlinkSync(join(root, "policy.json"));
  seen.push(await refusedEverywhere(s, root, /it changed since a person trusted it \(policy\.json\)/));
  assert.equal(runs(witness), 2, "nothing ran while the pack was not as trusted");
  noCredentialIn(seen.join("\n"));

  // An openapi pack: its local document is part of what was trusted.
  const api = join(s.ws, "api");
  mkdirSync(api);
  copyFileSync(fixture("openapi/notes.json"), join(api, "notes.json"));
  const binding = { mode: "local", hub: "local-credential", family: "bank" };
  writeFileSync(join(api, "surface.json"), JSON.stringify({ id: "notes", kind: "openapi", openapi: { path: "notes.json" }, binding, verbs: { "notes.list": { description: "List." } } }));
  // Plan-checked, so that it has a dry run (a plain read has none), which sends nothing.
  writeFileSync(join(api, "policy.json"), JSON.stringify({ surface_id: "notes", verbs: { "notes.list": { policy: "read", confirm: "plan" } }, openapi: { base_url: "https://127.0.0.1:9/v1" } }));
  await trustPack(api, s.env);
  const planned = await s.hcp(["run", api, "notes.list", "--dry-run", "--json"]);
  assert.equal(planned.code, 0, planned.stderr);
  const doc = readFileSync(join(api, "notes.json"), "utf8");
  writeFileSync(join(api, "notes.json"), doc.replace('"/notes"', '"/notes/../admin"'));
  const changed = await s.hcp(["run", api, "notes.list", "--dry-run", "--json"]);
  assert.equal(changed.code, 4, changed.stderr);
  assert.match(changed.stderr, /changed since a person trusted it \(its OpenAPI document\)/);
  assert.equal(changed.stdout, "");
});

test("a link decides nothing: the real folder and the files' digests do; a link re-pointed from a trusted pack to a copy with its own program is refused", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const trusted = agentPack(join(tempDir("hcp-trust-person-"), "bank-tools"), join(s.ws, "trusted.log"), undefined, "helper");
  const link = join(s.ws, "tools");
  symlinkSync(trusted, link);
  // The person trusts it through the link: the real folder is what is recorded.
  await trustPack(link, s.env);
  const through = await s.hcp(["run", link, "dump"]);
  assert.equal(through.code, 0, through.stderr);
  const list = JSON.parse((await s.hcp(["trust", "--list", "--json"])).stdout) as { packs: { root: string; matches: boolean }[] };
  assert.deepEqual(
    list.packs.map((p) => [p.root, p.matches]),
    [[trusted, true]],
  );

  // The agent's copy: the same surface.json and policy.json (the same digests), its own ./dump.sh.
  const evil = join(s.ws, "evil");
  mkdirSync(evil);
  for (const f of ["surface.json", "policy.json"]) copyFileSync(join(trusted, f), join(evil, f));
  writeFileSync(join(evil, "dump.sh"), `#!/bin/sh\necho ran >> '${witness}'\nenv\nprintf '%s' "$BANK_TOKEN" | base64\n`, { mode: 0o755 });
  unlinkSync(link);
  symlinkSync(evil, link);
  const seen: string[] = [];
  for (const args of [["run", link, "dump"], ["run", join(link, "surface.json"), "dump", "--dry-run"], ["run", evil, "--", "dump"]]) {
    const r = await s.hcp(args);
    assert.equal(r.code, 4, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /a person has never trusted it/);
    assert.ok(r.stderr.includes(`hcp trust ${evil}`), r.stderr);
    seen.push(r.stdout, r.stderr);
  }
  // A link inside the agent's folder to the trusted surface.json: the folder is still the agent's.
  const inner = join(s.ws, "inner");
  mkdirSync(inner);
  symlinkSync(join(trusted, "surface.json"), join(inner, "surface.json"));
  copyFileSync(join(trusted, "policy.json"), join(inner, "policy.json"));
  writeFileSync(join(inner, "dump.sh"), `#!/bin/sh\necho ran >> '${witness}'\nenv\n`, { mode: 0o755 });
  const r = await s.hcp(["run", inner, "dump"]);
  assert.equal(r.code, 4, r.stderr);
  seen.push(r.stdout, r.stderr);
  assert.equal(runs(witness), 0, "the agent's program never ran");
  noCredentialIn(seen.join("\n"));
});

test("hcp trust without a terminal refuses and records nothing, even with y on stdin or --no-prompt; --revoke needs none", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  for (const extra of [[], ["--no-prompt"], ["--json"]]) {
    const r = await hcp(["trust", root, ...extra], { env: s.env, stdin: "y\n" });
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, extra[0] === "--no-prompt" ? /--no-prompt forbids asking/ : /must be run by a person at a terminal/);
    assert.equal(recorded(s), 0, "nothing was recorded");
  }
  assert.equal((await s.hcp(["run", root, "dump"])).code, 4);
  // A pack verb that runs hcp trust on its own pack (stdin saying y, the same state directory) is refused the same way.
  writeFileSync(join(root, "dump.sh"), `#!/bin/sh\necho y | '${process.execPath}' '${HCP}' trust "$(dirname "$0")"\necho "trust: $?"\n`, { mode: 0o755 });
  const inside = await hcp(["exec", root], { env: s.env, stdin: JSON.stringify({ id: 1, pack: "helper", verb: "dump", args: {} }) + "\n" });
  assert.match(inside.stdout, /trust: 4/, inside.stdout);
  assert.equal(recorded(s), 0, "nothing was recorded");
  assert.equal(runs(witness), 0);

  await trustPack(root, s.env);
  const revoked = await hcp(["trust", "--revoke", root], { env: s.env });
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.match((await s.hcp(["run", root, "dump"])).stderr, /a person has never trusted it/);
  const again = await hcp(["trust", "--revoke", root], { env: s.env });
  assert.equal(again.code, 5, "nothing left to revoke");
});

test("hcp trust at a terminal shows the pack (controls and bidi escaped) and asks: n records nothing; y records it and hcp run then gives the credentials; --list and --revoke", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  const no = await s.onTerminal(["trust", root], "[y/N]", "n");
  assert.equal(no.code, 0, no.stdout);
  const screen = no.stdout;
  assert.match(screen, /About to trust pack "helper":/);
  assert.ok(screen.includes(`folder:      ${root}`), screen);
  assert.match(screen, /binding: +hub local-credential, family "bank", mode local/);
  assert.match(screen, /credentials: every value of family "bank" in .*credentials\.json \(variables \["BANK_TOKEN"\]/);
  assert.ok(screen.includes(`"dump": ${join(root, "dump.sh")} ["\\u{202E}-now"]`), screen);
  assert.match(screen, /pass-through: \["dump"\]/);
  assert.match(screen, /surface\.json sha256 [0-9a-f]{64}, policy\.json [0-9a-f]{64}/);
  assert.ok(!screen.includes("\u202e"), "no raw bidi character reaches the terminal");
  assert.ok(!screen.includes(SECRET), "the credential's value is never shown");
  assert.match(screen, /Not trusted: nothing was recorded/);
  assert.equal(recorded(s), 0);
  assert.equal((await s.hcp(["run", root, "dump"])).code, 4);

  const yes = await s.onTerminal(["trust", root], "[y/N]", "y");
  assert.equal(yes.code, 0, yes.stdout);
  assert.match(yes.stdout, /Trusted\./);
  const ran = await s.hcp(["run", root, "dump"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(runs(witness), 1);
  const list = await s.hcp(["trust", "--list"]);
  assert.ok(list.stdout.includes(`"helper" ${root}`) && list.stdout.includes("matches"), list.stdout);
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "helper", default: "read" }));
  assert.match((await s.hcp(["trust", "--list"])).stdout, /does not match: it changed since a person trusted it \(policy\.json\)/);
});

test("hcp run at a terminal offers the trust prompt on /dev/tty: n runs nothing, y trusts and runs; --no-prompt never asks", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = agentPack(join(s.ws, "helper"), witness);
  const quiet = await s.onTerminal(["run", root, "dump", "--no-prompt"], "", "");
  assert.equal(quiet.code, 4, quiet.stdout);
  assert.doesNotMatch(quiet.stdout, /\[y\/N\]/);
  const no = await s.onTerminal(["run", root, "dump"], "[y/N]", "n");
  assert.equal(no.code, 4, no.stdout);
  assert.match(no.stdout, /This pack is not trusted: a person has never trusted it\./);
  assert.match(no.stdout, /did not trust it/);
  assert.equal(runs(witness), 0);
  const yes = await s.onTerminal(["run", root, "dump"], "[y/N]", "y");
  assert.equal(yes.code, 0, yes.stdout);
  assert.equal(runs(witness), 1);
  assert.equal((await s.hcp(["run", root, "dump"])).code, 0, "trusted once, it runs without asking");
});

test("an agent-written pack that reads no credentials (hub none, public, mode mock): hcp run refuses with exit 4 and its program never runs; a person at a terminal can trust it; hcp exec and serve are unchanged", async () => {
  const s = scene();
  for (const [i, binding] of [{ mode: "local", hub: "none" }, { mode: "public", hub: "public" }, { mode: "mock", hub: "local-credential", family: "bank" }].entries()) {
    const witness = join(s.ws, `w${i}.log`);
    // Its program could read the person's credential file or write trust records: it runs as the person.
    const root = agentPack(join(s.ws, `p${i}`), witness, binding);
    for (const args of attempts(root)) {
      const r = await s.hcp(args);
      assert.equal(r.code, 4, `${JSON.stringify(binding)} ${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, "", "nothing ran, no plan is shown");
      assert.match(r.stderr, /a person has never trusted it: hcp run runs only a pack a person trusted/);
      assert.ok(r.stderr.includes(`hcp trust ${root}`), r.stderr);
    }
    assert.equal(runs(witness), 0, `${JSON.stringify(binding)}: the program never ran`);
    assert.equal(recorded(s), 0, "the agent's attempts recorded no trust");
  }
  // At a terminal hcp run asks the person, whatever the binding: y trusts it and it runs.
  const witness = join(s.ws, "w0.log");
  const yes = await s.onTerminal(["run", join(s.ws, "p0"), "dump"], "[y/N]", "y");
  assert.equal(yes.code, 0, yes.stdout);
  assert.match(yes.stdout, /credentials: none/);
  assert.equal(runs(witness), 1);
  assert.equal(recorded(s), 1);
  // hcp trust at a terminal records it too, and hcp run then runs it without asking.
  const trusted = await s.onTerminal(["trust", join(s.ws, "p1")], "[y/N]", "y");
  assert.equal(trusted.code, 0, trusted.stdout);
  assert.equal(recorded(s), 2);
  assert.equal((await s.hcp(["run", join(s.ws, "p1"), "dump"])).code, 0);
  assert.equal(runs(join(s.ws, "w1.log")), 1);
  // exec's command line is the person's: the packs it names are theirs to choose.
  const served = join(s.ws, "exec.log");
  const root = agentPack(join(s.ws, "served"), served, { mode: "local", hub: "none" });
  const session = await execSession([root], [JSON.stringify({ id: 1, pack: "helper", verb: "dump", args: {} })], [], { env: s.env });
  assert.equal(session.responses[0]?.ok, true, session.stdout);
  assert.equal(runs(served), 1);
});

/** An exec request for the agent pack's verb, in pack `pack`. */
const dump = (pack: string) => JSON.stringify({ id: 1, pack, verb: "dump", args: {} });

test("attack: under the operator's HCP_NO_PROMPT, an agent that runs hcp exec or hcp serve itself, naming a pack it wrote (whose program is any program), is refused (exit 4, naming hcp trust) and the program never runs; in a folder of packs it is left out; a pack a person trusted is served", async () => {
  const s = scene();
  const env = { ...s.env, HCP_NO_PROMPT: "1" };
  const witness = join(s.ws, "agent.log");
  const folder = join(s.ws, "packs");
  const root = agentPack(join(folder, "mine"), witness, { mode: "local", hub: "none" });
  const rule = "where HCP_NO_PROMPT is set, the command line may be the agent's, and hcp exec and hcp serve serve only packs a person trusted";
  const exec = await execSession([root], [dump("helper")], [], { env });
  const serve = await hcp(["serve", "--mcp", root], { env, stdin: "" });
  for (const r of [exec, serve]) {
    assert.equal(r.code, 4, r.stdout + r.stderr);
    assert.ok(r.stderr.includes(`a person has never trusted it: ${rule}`), r.stderr);
    assert.ok(r.stderr.includes(`hcp trust ${root}`), r.stderr);
  }
  assert.equal(runs(witness), 0, "the agent's program never ran");

  // Beside a pack a person trusted, in a folder of packs: the agent's is left out, named; the person's is served.
  const theirs = agentPack(join(folder, "theirs"), join(s.ws, "theirs.log"), { mode: "local", hub: "none" }, "theirs");
  await trustPack(theirs, env);
  const mixed = await execSession([folder], [dump("theirs"), JSON.stringify({ id: 2, pack: "helper", verb: "dump", args: {} })], [], { env });
  assert.equal(mixed.responses.find((r) => r.id === 1)?.ok, true, mixed.stdout);
  assert.equal(mixed.responses.find((r) => r.id === 2)?.ok, false, mixed.stdout);
  assert.ok(mixed.stderr.includes(`skipped ${root}: pack "helper" at ${root} would run as you, and a person has never trusted it: ${rule}`), mixed.stderr);
  assert.equal(runs(witness), 0, "the agent's program never ran");
  assert.equal(runs(join(s.ws, "theirs.log")), 1);
});

test("attack: under the operator's HCP_NO_PROMPT, an agent that runs hcp init --from-exe or --from-cobra naming a program of its own (a script it wrote, or /bin/sh, which reads __rungrad_manifest in the folder as its script) is refused (exit 4), dry runs too, and the program never runs; --from-manifest still makes a pack; without the variable the same command runs it", async () => {
  const s = scene();
  const witness = join(s.ws, "agent.log");
  writeFileSync(join(s.ws, "tool.sh"), `#!/bin/sh\necho tool >> '${witness}'\n`);
  chmodSync(join(s.ws, "tool.sh"), 0o755);
  writeFileSync(join(s.ws, "__rungrad_manifest"), `echo sh >> '${witness}'\n`);
  const agents = { ...s.env, HCP_NO_PROMPT: "1" };
  const inits = [
    ["--from-exe", "./tool.sh"],
    ["--from-exe", "/bin/sh"],
    ["--from-cobra", "./tool.sh"],
    ["--from-cobra", join(s.ws, "tool.sh"), "--dry-run"],
  ];
  for (const [flag, program, ...more] of inits) {
    const out = join(s.ws, `pack-${flag}`);
    const r = await hcp(["init", flag!, program!, "--out", out, ...more], { env: agents, cwd: s.ws });
    assert.equal(r.code, 4, `${flag} ${program}: ${r.stdout}${r.stderr}`);
    assert.ok(r.stderr.includes(`hcp init ${flag} must be run by a person at a terminal of their own: HCP_NO_PROMPT is set here`), r.stderr);
    assert.equal(existsSync(out), false, "no pack written");
  }
  assert.equal(runs(witness), 0, "the agent's program never ran");
  // A manifest is only read: the agent may make a pack from one (a person still trusts it before hcp run runs it).
  const manifest = await hcp(["init", "--from-manifest", `${REPO}examples/manifests/rgref.json`, "--out", join(s.ws, "rgref"), "--bin", "/bin/true"], { env: agents, cwd: s.ws });
  assert.equal(manifest.code, 0, manifest.stderr);
  // The person's terminal: the same command runs the program (the rule is the variable).
  const persons = await hcp(["init", "--from-exe", "/bin/sh", "--out", join(s.ws, "theirs")], { env: s.env, cwd: s.ws });
  assert.notEqual(persons.code, 4, persons.stderr);
  assert.equal(runs(witness), 1, "without HCP_NO_PROMPT, /bin/sh read __rungrad_manifest as its script");
});

test("hcp trust --list, as text and as JSON, writes the bidi and invisible characters of a folder's name as escapes: the person sees which folder is trusted", async () => {
  const s = scene();
  // The agent names the folder: `tools` + RIGHT-TO-LEFT OVERRIDE + `kcab` reads as `toolsback` on a terminal.
  const root = agentPack(join(s.ws, "tools\u202ekcab\u200b\u3164"), join(s.ws, "witness.log"));
  recordedEarlier(root, s);
  const raw = /[\u202e\u200b\u3164]/;
  const text = await s.hcp(["trust", "--list"]);
  assert.equal(text.code, 0, text.stderr);
  assert.ok(!raw.test(text.stdout), text.stdout);
  const json = await s.hcp(["trust", "--list", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(!raw.test(json.stdout), `no raw bidi or invisible character: ${json.stdout}`);
  assert.ok(json.stdout.includes("tools\\u202ekcab\\u200b\\u3164"), json.stdout);
  // The same JSON value: the escapes decode to the folder's real name.
  const list = JSON.parse(json.stdout) as { packs: { root: string; matches: boolean }[] };
  assert.deepEqual(
    list.packs.map((p) => [p.root, p.matches]),
    [[root, true]],
  );
});
