// The agent writes a pack and hcp run's command line: its surface.json or policy.json may be a link to any file of the
// person's (a token file), and its openapi.path may climb out of the pack to one. hcp reads them to report what is
// wrong; its error must say where, never quote the text (V8's JSON.parse quotes up to 10 characters of it).
// Spawns the built hcp.

import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { asAgentInThisFile } from "./helpers.js";
import { isolatedEnv } from "./hardening.js";
import { hcp, tempDir } from "../transports/support.js";

asAgentInThisFile();

const TOKEN = "tk7f3a9c21d4e8b6a0c5d2";

/** No run of 4 characters of the token shows in `text`. */
function noPieceOfToken(text: string): void {
  for (let i = 0; i + 4 <= TOKEN.length; i++) assert.ok(!text.includes(TOKEN.slice(i, i + 4)), `a piece of the token (${TOKEN.slice(i, i + 4)}) shows:\n${text}`);
}

test("a pack file linked to the person's token file, or an openapi.path climbing out to one, is reported without quoting it: hcp run and hcp validate", async () => {
  const env = isolatedEnv();
  const home = tempDir("hcp-person-");
  // The person's files: a bare token, and a token in text that looks like JSON.
  const bare = join(home, "token");
  writeFileSync(bare, `${TOKEN}\n`, { mode: 0o600 });
  const listed = join(home, "tokens.json");
  writeFileSync(listed, `[${TOKEN}]\n`, { mode: 0o600 });
  const ws = tempDir("hcp-agent-");
  const packs: string[] = [];
  for (const [name, target] of [
    ["s-bare", bare],
    ["s-listed", listed],
  ] as const) {
    const root = join(ws, name);
    mkdirSync(root);
    symlinkSync(target, join(root, "surface.json"));
    packs.push(root);
  }
  const policyLinked = join(ws, "p-bare");
  mkdirSync(policyLinked);
  writeFileSync(join(policyLinked, "surface.json"), JSON.stringify({ id: "p", kind: "wrap", wrap: { bin: "true" }, verbs: { x: { description: "X.", cli: ["true"] } } }));
  symlinkSync(bare, join(policyLinked, "policy.json"));
  packs.push(policyLinked);
  const climbing = join(ws, "o-listed");
  mkdirSync(climbing);
  const up = join(...Array(climbing.split("/").length - 1).fill(".."), listed);
  writeFileSync(join(climbing, "surface.json"), JSON.stringify({ id: "o", kind: "openapi", openapi: { path: up }, verbs: { x: { description: "X." } } }));
  packs.push(climbing);
  for (const root of packs) {
    const run = await hcp(["run", root, "x"], { env });
    assert.notEqual(run.code, 0, run.stderr);
    assert.match(run.stderr, /validation errors/, `${root}: ${run.stderr}`);
    noPieceOfToken(run.stdout + run.stderr);
    const validate = await hcp(["validate", root], { env });
    assert.equal(validate.code, 1, validate.stdout + validate.stderr);
    assert.match(validate.stdout + validate.stderr, /line 1, column/);
    noPieceOfToken(validate.stdout + validate.stderr);
  }
});
