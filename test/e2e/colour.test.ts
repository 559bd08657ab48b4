// Colour in the programs' human output: on a terminal only, never with NO_COLOR or --no-color; the piped bytes stay plain.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO, RUNGRAD, rungrad } from "./helpers.js";
import { HCP, hcp, pack } from "../transports/support.js";
import { isolatedEnv } from "./hardening.js";

const RGREF = join(REPO, "examples/rgref/rgref");
const NO_SCRIPT = spawnSync("script", ["--version"]).status !== 0 && "no script(1)";
const { NO_COLOR: _unset, ...COLOUR_ENV } = process.env;

/** Runs `args` with a terminal for stdin, stdout and stderr (script(1)); returns what the terminal showed. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv = COLOUR_ENV): string {
  const command = [process.execPath, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const r = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8", env });
  return r.stdout;
}

test("rungrad score colours PASS/FAIL on a terminal only; NO_COLOR and --no-color turn it off", { skip: NO_SCRIPT }, async () => {
  const args = [RUNGRAD, "score", RGREF, "--read", "item list", "--quiet"];
  assert.match(onTerminal(args), /\[\x1b\[32mPASS\x1b\[0m\] output\.json-parseable/);
  assert.doesNotMatch(onTerminal(args, { ...COLOUR_ENV, NO_COLOR: "1" }), /\x1b\[3\dm/);
  assert.doesNotMatch(onTerminal([...args, "--no-color"]), /\x1b\[3\dm/);
  const piped = await rungrad(["score", RGREF, "--read", "item list"]);
  assert.doesNotMatch(piped.stdout, /\x1b/);
});

test("hcp validate starts each line with its severity, coloured on a terminal only, and never prints \"\" as a path", { skip: NO_SCRIPT }, async () => {
  const piped = await hcp(["validate", pack("hcp-invalid"), "/nonexistent/pack"], { env: isolatedEnv() });
  assert.match(piped.stdout, /^error: .*hcp-invalid\/surface\.json: binding\.colour: binding: /m);
  assert.match(piped.stdout, /^error: \/nonexistent\/pack\/surface\.json: io: cannot read surface\.json: no such file$/m);
  assert.doesNotMatch(piped.stdout, /""|\x1b/);
  assert.match(onTerminal([HCP, "validate", pack("hcp-invalid")], { ...isolatedEnv(), NO_COLOR: undefined }), /\x1b\[31merror\x1b\[0m: /);
  assert.doesNotMatch(onTerminal([HCP, "validate", pack("hcp-invalid"), "--no-color"], isolatedEnv()), /\x1b\[3\dm/);
});
