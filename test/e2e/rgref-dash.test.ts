// `--` ends the search for a subcommand, as in Cobra's Find (stripFlags stops at `--`): a word after it is an
// operand, never a command. The built rgref, with real pipes; Go rgref's output for each case is its `--help`.

import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { test } from "node:test";
import { App } from "../../src/framework/index.js";
import { runApp } from "../framework/helpers.js";
import { tempDir } from "../temp.js";
import { REPO, run } from "./helpers.js";

const RGREF = `${REPO}examples/rgref/rgref`;
const HOME = tempDir("rgref-dash-");
const rgref = (args: string[]) => run(RGREF, args, { env: { PATH: process.env["PATH"] ?? "", HOME, XDG_CONFIG_HOME: HOME, TMPDIR: tmpdir() }, timeoutMs: 10_000 });

test("rgref item -- list and rgref -- item list run no subcommand: the help of item (of the root), exit 0, as Cobra", async () => {
  const [itemHelp, rootHelp] = await Promise.all([rgref(["item", "--help"]), rgref(["--help"])]);
  const cases: [string[], string][] = [
    [["item", "--", "list"], itemHelp.stdout],
    [["item", "--json", "--", "list"], itemHelp.stdout],
    [["item", "--", "nope"], itemHelp.stdout],
    [["--", "item", "list"], rootHelp.stdout],
    [["--", "item"], rootHelp.stdout],
    [["--", "nope"], rootHelp.stdout],
  ];
  const runs = await Promise.all(cases.map(([args]) => rgref(args)));
  runs.forEach((r, i) => assert.deepEqual([r.code, r.stdout, r.stderr], [0, cases[i]![1], ""], cases[i]![0].join(" ")));
  assert.match(itemHelp.stdout, /^Work with items\n/);
  // Before `--` a subcommand is still found, and after it the words are its operands.
  const list = await rgref(["item", "list", "--", "x"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^ID {2}Name\n/);
});

/** An app with a group that runs on its own (grp) and one that does not (box). */
const make = (unknownSubcommand?: "error") =>
  new App({ name: "demo", short: "Demo", version: "v1.0.0", ...(unknownSubcommand ? { unknownSubcommand } : {}) }).addCommand(
    {
      use: "grp [args...]",
      short: "A group that runs",
      run: (ctx) => void ctx.writeResult(null, () => `grp ${ctx.args.join(",")} | ${ctx.argsLenAtDash}\n`),
      commands: [{ use: "sub", short: "Sub", run: (ctx) => void ctx.writeResult(null, () => "sub ran\n") }],
    },
    { use: "box", short: "A plain group", commands: [{ use: "inner", short: "Inner", run: (ctx) => void ctx.writeResult(null, () => "inner ran\n") }] },
  );

test("a runnable command with subcommands runs itself with the word after `--` as an operand (ArgsLenAtDash 0); an app that errors on unknown subcommands does not blame it", async () => {
  assert.deepEqual(await runApp(make(), ["grp", "--", "sub"]), { code: 0, stdout: "grp sub | 0\n", stderr: "" });
  assert.deepEqual(await runApp(make(), ["grp", "sub"]), { code: 0, stdout: "sub ran\n", stderr: "" });
  const box = await runApp(make("error"), ["box", "--", "inner"]);
  assert.deepEqual([box.code, box.stderr], [0, ""]);
  assert.match(box.stdout, /^A plain group\n/);
  const unknown = await runApp(make("error"), ["box", "nope"]);
  assert.deepEqual([unknown.code, unknown.stderr], [1, 'Error: unknown command "nope" for "demo box"\n']);
});
