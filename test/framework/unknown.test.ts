// Unknown commands: Cobra's "Did you mean this?" for every app, the blame on the command before any flag, and
// rungrad/hcp's groups, which fail on an unknown subcommand instead of printing help.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { newApp } from "../../examples/rgref/app.js";
import { rungrad } from "../e2e/helpers.js";
import { hcp, tempDir } from "../transports/support.js";
import { isolatedEnv } from "../e2e/hardening.js";
import { runApp } from "./helpers.js";

test("an unknown root command names Cobra's suggestions (distance 2 or a prefix); none when nothing is close", async () => {
  const typo = await runApp(newApp(), ["itme"]);
  assert.equal(typo.code, 1);
  assert.equal(typo.stderr, 'Error: unknown command "itme" for "rgref"\n\nDid you mean this?\n\titem\n\n');
  const prefix = await runApp(newApp(), ["who"]);
  assert.equal(prefix.stderr, 'Error: unknown command "who" for "rgref"\n\nDid you mean this?\n\twhoami\n\n');
  const far = await runApp(newApp(), ["frobnicate"]);
  assert.equal(far.stderr, 'Error: unknown command "frobnicate" for "rgref"\n');
});

test("an unknown first word is blamed before an unknown flag after it, as Cobra finds commands before parsing flags", async () => {
  const r = await runApp(newApp(), ["iten", "--bogus"]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'Error: unknown command "iten" for "rgref"\n\nDid you mean this?\n\titem\n\n');
  // A flag value is not a command.
  const value = await runApp(newApp(), ["--config", "item", "nope"]);
  assert.equal(value.stderr, 'Error: unknown command "nope" for "rgref"\n');
});

test("a user CLI's group keeps Cobra's behaviour: an unknown subcommand prints the group's help, exit 0", async () => {
  const r = await runApp(newApp(), ["item", "frob"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Work with items/);
});

test("rungrad and hcp: an unknown subcommand exits 1 with a suggestion; `hcp serv --mcp` blames serv", async () => {
  const sub = await rungrad(["manifest", "valdate", "x"]);
  assert.deepEqual([sub.code, sub.stdout, sub.stderr], [1, "", 'Error: unknown command "valdate" for "rungrad manifest"\n\nDid you mean this?\n\tvalidate\n\n']);
  const json = await rungrad(["manifest", "valdate", "x", "--json"]);
  assert.deepEqual(JSON.parse(json.stderr), { error: 'unknown command "valdate" for "rungrad manifest"\n\nDid you mean this?\n\tvalidate\n', exit_code: 1 });
  const serve = await hcp(["serv", "--mcp"], { env: isolatedEnv() });
  assert.deepEqual([serve.code, serve.stdout, serve.stderr], [1, "", 'Error: unknown command "serv" for "hcp"\n\nDid you mean this?\n\tserve\n\n']);
  // The group alone still shows its help.
  const group = await rungrad(["manifest"]);
  assert.equal(group.code, 0);
  assert.match(group.stdout, /validate/);
});

test("hcp init given the pack folder as an operand says it is given with --out, and writes nothing", async () => {
  const cwd = tempDir("hcp-init-operand-");
  const r = await hcp(["init", "--from-manifest", "-", "my pack"], { env: isolatedEnv(), cwd, stdin: "{}" });
  assert.deepEqual([r.code, r.stdout, r.stderr], [1, "", `Error: unknown command "my pack" for "hcp init" (the pack folder is given with --out: --out 'my pack')\n`]);
  assert.deepEqual(readdirSync(cwd), []);
});
