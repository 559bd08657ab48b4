// Cobra's completion protocol on the built rgref: the hidden __complete command, the completion
// command's help, and scripts that call back into the program (bash is run for real).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../temp.js";
import { REPO, run } from "./helpers.js";

const RGREF = `${REPO}examples/rgref/rgref`;
const HOME = tempDir("rgref-completion-");
const rgref = (args: string[], env: Record<string, string> = {}) =>
  run(RGREF, args, { env: { PATH: process.env["PATH"] ?? "", HOME, XDG_CONFIG_HOME: HOME, ...env }, timeoutMs: 10_000 });

const ITEM_COMMANDS = "create\tCreate an item\ndelete\tDelete an item\nget\tResolve an item by name or id\nlist\tList items\n";

test("__complete lists a command's subcommands with descriptions, then :4 and the directive on stderr (Go's bytes)", async () => {
  const r = await rgref(["__complete", "item", ""]);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, ITEM_COMMANDS + ":4\n", "Completion ended with directive: ShellCompDirectiveNoFileComp\n"]);
  const root = await rgref(["__complete", "--config", "x", ""]);
  assert.equal(
    root.stdout,
    "completion\tGenerate the autocompletion script for the specified shell\nhelp\tHelp about any command\nitem\tWork with items\n" +
      "update\tCheck for and install the latest version\nwhoami\tShow the authenticated identity\n:4\n",
  );
  const noDesc = await rgref(["__completeNoDesc", "item", "l"]);
  assert.equal(noDesc.stdout, "list\n:4\n");
  const byEnv = await rgref(["__complete", "item", ""], { RGREF_COMPLETION_DESCRIPTIONS: "false" });
  assert.equal(byEnv.stdout, "create\ndelete\nget\nlist\n:4\n");
  const help = await rgref(["__complete", "help", "item", "g"]);
  assert.equal(help.stdout, "get\tResolve an item by name or id\n:4\n");
});

test("__complete completes flag names after -, offers nothing for a flag's value, and reports errors as Cobra does", async () => {
  const flags = await rgref(["__complete", "item", "list", "--j"]);
  assert.equal(
    flags.stdout,
    "--jq\tTransform stable JSON output with a jq expression (commands with machine output)\n--json\tOutput stable JSON instead of the human view\n:4\n",
  );
  const value = await rgref(["__complete", "item", "list", "--config", ""]);
  assert.deepEqual([value.stdout, value.stderr], [":0\n", "Completion ended with directive: ShellCompDirectiveDefault\n"]);
  const unknown = await rgref(["__complete", "bogus", ""]);
  assert.deepEqual(
    [unknown.code, unknown.stdout, unknown.stderr],
    [0, ":0\n", "[Debug] [Error] unable to find a command for arguments: [bogus]\nCompletion ended with directive: ShellCompDirectiveDefault\n"],
  );
  const badFlag = await rgref(["__complete", "item", "get", "--name", ""]);
  assert.equal(badFlag.stderr, "[Debug] [Error] Error while parsing flags from args [--name]: unknown flag: --name\nCompletion ended with directive: ShellCompDirectiveDefault\n");
  const helpGiven = await rgref(["__complete", "item", "--help", ""]);
  assert.equal(helpGiven.stdout, ":4\n");
  const none = await rgref(["__complete"]);
  assert.deepEqual([none.code, none.stderr], [1, "Error: requires at least 1 arg(s), only received 0\n"]);
});

test("completion help: Cobra's long texts, bash's use line without [flags], --no-descriptions on every shell", async () => {
  const top = await rgref(["completion", "--help"]);
  assert.ok(top.stdout.startsWith("Generate the autocompletion script for rgref for the specified shell.\nSee each sub-command's help for details on how to use the generated script.\n\nUsage:\n  rgref completion [command]\n"), top.stdout);
  const bash = await rgref(["completion", "bash", "--help"]);
  assert.ok(bash.stdout.includes("\tsource <(rgref completion bash)\n"));
  assert.ok(bash.stdout.includes("\trgref completion bash > $(brew --prefix)/etc/bash_completion.d/rgref\n\nYou will need to start a new shell for this setup to take effect.\n\nUsage:\n  rgref completion bash\n\nFlags:\n  -h, --help              help for bash\n      --no-descriptions   disable completion descriptions\n"));
  const zsh = await rgref(["completion", "zsh", "--help"]);
  assert.ok(zsh.stdout.includes('\trgref completion zsh > "${fpath[1]}/_rgref"\n'));
  assert.ok(zsh.stdout.includes("\nUsage:\n  rgref completion zsh [flags]\n"));
  const fish = await rgref(["completion", "fish", "--help"]);
  assert.ok(fish.stdout.startsWith("Generate the autocompletion script for the fish shell.\n\nTo load completions in your current shell session:\n\n\trgref completion fish | source\n"));
  const ps = await rgref(["completion", "powershell", "--help"]);
  assert.ok(ps.stdout.includes("\trgref completion powershell | Out-String | Invoke-Expression\n\nTo load completions for every new session, add the output of the above command\nto your powershell profile.\n"));
  for (const shell of ["bash", "zsh", "fish", "powershell"]) {
    const withDesc = await rgref(["completion", shell]);
    const plain = await rgref(["completion", shell, "--no-descriptions"]);
    assert.equal(withDesc.code, 0, shell);
    assert.match(withDesc.stdout, / __complete /, shell);
    assert.doesNotMatch(withDesc.stdout, /__completeNoDesc/, shell);
    assert.match(plain.stdout, / __completeNoDesc /, shell);
  }
});

test("the bash script asks the program on every TAB: subcommands, flags, --flag=value words joined again", async () => {
  const script = join(HOME, "rgref.bash");
  writeFileSync(script, (await rgref(["completion", "bash"])).stdout);
  const complete = (...words: string[]) =>
    execFileSync("bash", ["-c", `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); __rgref_complete; printf '%s\\n' "\${COMPREPLY[@]}"`, "_", script, RGREF, ...words], {
      encoding: "utf8",
      env: { PATH: process.env["PATH"] ?? "", HOME },
    });
  assert.equal(complete("item", "l"), "list\n");
  assert.equal(complete("item", ""), "create  (Create an item)\ndelete  (Delete an item)\nget  (Resolve an item by name or id)\nlist  (List items)\n");
  assert.equal(complete("item", "list", "--js"), "--json\n");
  assert.equal(complete("--config", "=", "x", "it"), "item\n");
  assert.equal(complete("bogus", ""), "\n");
});
