// The framework pieces the hcp program relies on: help topics, handler exit codes, operands before `--`, error details.

import { test } from "node:test";
import assert from "node:assert/strict";
import { App, DetailedError } from "../../src/framework/index.js";
import { runApp } from "./helpers.js";

function app(): App {
  return new App({ name: "demo", short: "Demo tool", version: "v1.0.0" }).addCommand({
    use: "tool",
    short: "Tools",
    commands: [
      {
        use: "run [args...]",
        short: "Run something",
        outputModes: ["human", "json"],
        run: async (ctx) => {
          if (ctx.args[0] === "fail") throw new DetailedError(4, "refused by policy", { code: "denied" });
          ctx.setExitCode(Number(ctx.args[0] ?? "0"));
          await ctx.writeResult({ args: ctx.args, before_dash: ctx.argsLenAtDash }, () => `${ctx.args.join(" ")} | ${ctx.argsLenAtDash}\n`);
        },
      },
    ],
  });
}

test("help [command] prints the named command's help; an unknown topic falls back to the root's usage", async () => {
  const named = await runApp(app(), ["help", "tool", "run"]);
  assert.equal(named.code, 0);
  assert.match(named.stdout, /^Run something\n/);
  const unknown = await runApp(app(), ["help", "nope"]);
  assert.equal(unknown.code, 0);
  assert.match(unknown.stdout, /^Unknown help topic \[`nope`\]\nUsage:\n/);
});

test("a handler may set the exit code; operands before `--` are counted like Cobra's ArgsLenAtDash", async () => {
  const r = await runApp(app(), ["tool", "run", "7", "--", "--json", "x"]);
  assert.equal(r.code, 7);
  assert.equal(r.stdout, "7 --json x | 1\n");
  const none = await runApp(app(), ["tool", "run", "0", "--json"]);
  assert.deepEqual(JSON.parse(none.stdout), { args: ["0"], before_dash: -1 });
});

test("DetailedError adds its fields to the machine error body and keeps its exit code", async () => {
  const human = await runApp(app(), ["tool", "run", "fail"]);
  assert.deepEqual([human.code, human.stderr], [4, "Error: refused by policy\n"]);
  const machine = await runApp(app(), ["tool", "run", "fail", "--json"]);
  assert.equal(machine.code, 4);
  assert.deepEqual(JSON.parse(machine.stderr), { code: "denied", error: "refused by policy", exit_code: 4 });
});

test("profile names are checked as Go's config package does", async () => {
  const { newApp } = await import("../../examples/rgref/app.js");
  const bad = await runApp(newApp(), ["whoami", "--profile", "bad name"], { env: { HOME: "/nonexistent-home", RGREF_TOKEN: "t0k3n-value" } });
  assert.deepEqual([bad.code, bad.stderr], [1, 'Error: invalid profile name "bad name"\n']);
  const ok = await runApp(newApp(), ["whoami", "--profile", "ok.name-1"], { env: { HOME: "/nonexistent-home", RGREF_TOKEN: "t0k3n-value" } });
  assert.equal(ok.code, 0, ok.stderr);
});

test("given-but-blank --config, --auth-file and --profile are errors, as in Go's config resolution", async () => {
  const { newApp } = await import("../../examples/rgref/app.js");
  const env = { HOME: "/nonexistent-home", RGREF_TOKEN: "t0k3n-value" };
  const config = await runApp(newApp(), ["item", "list", "--config="], { env });
  assert.deepEqual([config.code, config.stderr], [1, "Error: malformed config: --config cannot be blank\n"]);
  const auth = await runApp(newApp(), ["whoami", "--auth-file", ""], { env });
  assert.deepEqual([auth.code, auth.stderr], [1, "Error: malformed config: --auth-file cannot be blank\n"]);
  const profile = await runApp(newApp(), ["whoami", "--profile="], { env });
  assert.deepEqual([profile.code, profile.stderr], [1, "Error: invalid profile name\n"]);
});

test("--version is the root's own flag, as in Cobra: after a subcommand it is unknown", async () => {
  const root = await runApp(app(), ["--version"]);
  assert.deepEqual([root.code, root.stdout], [0, "demo version v1.0.0\n"]);
  const sub = await runApp(app(), ["tool", "run", "--version"]);
  assert.deepEqual([sub.code, sub.stderr], [1, "Error: unknown flag: --version\n"]);
  const short = await runApp(app(), ["tool", "-v"]);
  assert.deepEqual([short.code, short.stderr], [1, "Error: unknown shorthand flag: 'v' in -v\n"]);
  const operand = await runApp(app(), ["tool", "run", "0", "--", "--version"]);
  assert.equal(operand.code, 0);
});

test("completion scripts call back into the program, which answers Cobra's __complete protocol", async () => {
  for (const shell of ["bash", "zsh", "fish", "powershell"]) {
    const r = await runApp(app(), ["completion", shell]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, new RegExp(`^#( compdef demo\n)?.*${shell} completion for demo`, "s"));
    assert.match(r.stdout, / __complete /);
  }
  const tool = await runApp(app(), ["__complete", "tool", ""]);
  assert.deepEqual([tool.stdout, tool.stderr], ["run\tRun something\n:4\n", "Completion ended with directive: ShellCompDirectiveNoFileComp\n"]);
  const flags = await runApp(app(), ["__complete", "tool", "run", "--js"]);
  assert.equal(flags.stdout, "--json\tOutput stable JSON instead of the human view\n:4\n");
});
