// Red team, after hcp began refusing packs that name their own folder by an absolute path (hcp-redteam-self-path.test.ts):
// the ways to that folder the search first missed though a person writes them (the home folder's other name where
// it is a link, as /home is to /var/home on some systems; `"$HOME"/pack` with the variable quoted), and hcp's removal
// of its copies cut short by a kill, which left part of a copy where the next run used it as is. Each time the agent
// rewrites or plants a program after hcp's check, and a witness file shows what really ran.

import assert from "node:assert/strict";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { asAgentInThisFile, trustPack } from "./helpers.js";
import { hcp, tempDir } from "../transports/support.js";
import { copiesDir, lines, recordedEarlier, rewriteAtSpawn, scene } from "./trust-support.js";

asAgentInThisFile();

const say = (witness: string, word: string) => `echo ${word} >> '${witness}'\n`;

/** A composite pack at `root` whose verb `go` runs `cli`, with `files` (name → text; `*` ending a name: executable). */
function writePack(root: string, cli: string[], files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, ".."), { recursive: true });
    writeFileSync(join(root, name.replace(/\*$/, "")), text, { mode: name.endsWith("*") ? 0o755 : 0o644 });
  }
  const surface = { id: "selfpath", kind: "composite", binding: { mode: "local", hub: "local-credential", family: "bank" }, verbs: { go: { description: "Goes.", cli, policy: "read" } } };
  writeFileSync(join(root, "surface.json"), JSON.stringify(surface, null, 2));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "selfpath", default: "read" }, null, 2));
  return root;
}

test("a pack naming its folder through the home folder's other name (home a link, as /home to /var/home), or as \"$HOME\"/… or '<home>'/… with quotes, cannot be trusted; hcp run refuses it trusted earlier and the agent's rewrite never runs", async () => {
  const s = scene();
  // The person's home is a link to the real one; the pack is trusted by its real path (as `cd ~/pack; hcp trust .` gives it).
  const real = tempDir("hcp-real-home-");
  const home = join(s.ws, "home-link");
  symlinkSync(real, home);
  s.env["HOME"] = home;
  const witness = join(s.ws, "witness.log");
  const forms = [
    (dir: string) => `. '${join(home, dir)}/lib.sh'`,
    (dir: string) => `. '${join(real, dir)}/lib.sh'`,
    (dir: string) => `. "$HOME"/${dir}/lib.sh`,
    (dir: string) => `. "\${HOME}"/${dir}/lib.sh`,
    (dir: string) => `. '${home}'/${dir}/lib.sh`,
  ];
  for (const [i, form] of forms.entries()) {
    const root = writePack(join(real, `pack${i}`), ["./main.sh"], { "main.sh*": `#!/bin/sh\n# the library\n${form(`pack${i}`)}\n`, "lib.sh": say(witness, "trusted") });
    const trust = await s.onTerminal(["trust", root], "[y/N]", "y");
    assert.notEqual(trust.code, 0, `${form("pack")}: ${trust.stdout}`);
    assert.match(trust.stdout, /main\.sh \(line 3\) names the pack folder/, form("pack"));
    recordedEarlier(root, s);
    const r = await hcp(["run", root, "go"], { env: rewriteAtSpawn(s, join(root, "lib.sh"), say(witness, "evil")), timeoutMs: 60_000 });
    assert.equal(r.code, 4, `${form("pack")}: ${r.stderr}`);
  }
  assert.deepEqual(lines(witness), [], "nothing ran, the agent's text least of all");
  // Held: the home folder's sibling (`<home>2`) is another folder, and the pack runs.
  const ok = writePack(join(real, "ok"), ["./main.sh"], { "main.sh*": `#!/bin/sh\n[ -f "$HOME"2/ok/lib.sh ] && . "$HOME"2/ok/lib.sh\n${say(witness, "ran")}` });
  assert.equal((await s.onTerminal(["trust", ok], "[y/N]", "y")).code, 0);
  const r = await hcp(["run", ok, "go"], { env: s.env, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(witness), ["ran"]);
});


test("hcp trust --revoke killed partway through removing a copy leaves no part of it where a run would use it: trusted again, the pack runs from a whole copy, never the agent's program found on PATH in place of a removed file", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  // A trusted wrapper that puts its own bin/ first on PATH, then runs its tool.
  const root = writePack(join(s.ws, "pack"), ["./main.sh"], { "main.sh*": `#!/bin/sh\nPATH="$(dirname "$0")/bin:$PATH"\ntool\n`, "bin/tool*": `#!/bin/sh\n${say(witness, "trusted")}` });
  // A folder on the person's PATH that the agent can write (~/.local/bin, say), holding its own `tool`.
  const agentBin = join(s.ws, "bin");
  mkdirSync(agentBin);
  writeFileSync(join(agentBin, "tool"), `#!/bin/sh\n${say(witness, "evil")}`, { mode: 0o755 });
  s.env["PATH"] = `${String(s.env["PATH"])}:${agentBin}`;
  await trustPack(root, s.env);
  assert.equal((await s.hcp(["run", root, "go"])).code, 0);
  assert.equal(readdirSync(copiesDir(s, root)).length, 1);

  // The agent's `hcp trust --revoke` (it needs no terminal), killed once the removal has taken the copy's bin/tool.
  const hook = join(s.ws, "kill-in-rm.cjs");
  writeFileSync(
    hook,
    `const fs = require("node:fs"); const path = require("node:path");
const find = (dir) => { for (const d of fs.readdirSync(dir, { withFileTypes: true })) { const p = path.join(dir, d.name); if (d.isDirectory()) { const f = find(p); if (f) return f; } else if (d.name === "tool") return p; } };
fs.rmSync = function (p) { const tool = find(String(p)); if (tool) fs.unlinkSync(tool); process.kill(process.pid, "SIGKILL"); };\n`,
  );
  const revoke = await hcp(["trust", "--revoke", root], { env: { ...s.env, NODE_OPTIONS: `--require ${hook}` }, timeoutMs: 60_000 });
  assert.equal(revoke.code, null, `killed: ${revoke.stderr}`);

  // The person trusts the same pack again; its run must not use what the cut-short removal left.
  await trustPack(root, s.env);
  const r = await s.hcp(["run", root, "go"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(witness), ["trusted", "trusted"], "the trusted tool ran both times, the agent's never");
});

test("held: a program named by a path climbing out of the pack and back in (../<folder>/main.sh) runs from hcp's copy, so the agent's rewrite after the check never runs", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const root = writePack(join(s.ws, "pack"), ["../pack/main.sh"], { "main.sh*": `#!/bin/sh\n${say(witness, "trusted")}` });
  await trustPack(root, s.env);
  const r = await hcp(["run", root, "go"], { env: rewriteAtSpawn(s, join(root, "main.sh"), `#!/bin/sh\n${say(witness, "evil")}`), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(witness), ["trusted"]);
});

test("hcp trust --revoke (the agent's: it needs no terminal) while a trusted program runs from hcp's copy leaves that copy: the program's late reads find its own files, never the agent's program found on PATH in their place", async () => {
  const s = scene();
  const witness = join(s.ws, "witness.log");
  const go = join(s.ws, "go");
  // A trusted wrapper that puts its own bin/ first on PATH, says it started, waits for the test (at most 60 s), then runs its tool.
  const main = `#!/bin/sh\nPATH="$(dirname "$0")/bin:$PATH"\n${say(witness, "started")}i=0\nwhile [ ! -f '${go}' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\ntool\n`;
  const root = writePack(join(s.ws, "pack"), ["./main.sh"], { "main.sh*": main, "bin/tool*": `#!/bin/sh\n${say(witness, "trusted")}` });
  const agentBin = join(s.ws, "bin");
  mkdirSync(agentBin);
  writeFileSync(join(agentBin, "tool"), `#!/bin/sh\n${say(witness, "evil")}`, { mode: 0o755 });
  s.env["PATH"] = `${String(s.env["PATH"])}:${agentBin}`;
  await trustPack(root, s.env);
  const running = s.hcp(["run", root, "go"]);
  for (let i = 0; i < 600 && !lines(witness).includes("started"); i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(lines(witness), ["started"]);
  const revoke = await s.hcp(["trust", "--revoke", root]);
  assert.equal(revoke.code, 0, revoke.stderr);
  writeFileSync(go, "");
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(witness), ["started", "trusted"], "the trusted tool ran, the agent's never");
  // The trust is gone all the same.
  assert.equal((await s.hcp(["run", root, "go"])).code, 4);
});
