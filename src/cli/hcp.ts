#!/usr/bin/env node
// The `hcp` program: HCP/1.1 harness packs — validate, meta, init, skill, list, and the run / exec / serve transports.

import { Command, CommanderError } from "commander";
import { stableJSON } from "../json/stable.js";
import { errorBody, exitCodeOf } from "../transports/errors.js";
import { CliError } from "./errors.js";
import { PACKAGE_VERSION } from "./version.js";

const print = (text: string) => process.stdout.write(text);
const collect = (value: string, previous: string[]) => [...previous, value];

/** The pass-through argv of `hcp run PACK -- SUB…`, cut off before commander parses the rest. */
let passThrough: string[] | undefined;

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command("hcp")
    .description("HCP/1.1 harness packs: validate them, derive their metadata, generate them, and serve their verbs")
    .version(PACKAGE_VERSION, "--version", "Print the version")
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .showHelpAfterError(false);

  program
    .command("run")
    .description("Run one verb of a pack (or `-- SUBCOMMAND…` for its pass-through) and exit with the child's exit code")
    .argument("<pack>", "pack folder or its surface.json")
    .argument("[verb]", "verb key")
    .option("--arg <name=value>", "an argument: NAME=VALUE (a string) or NAME:=JSON (any JSON value); repeatable", collect, [])
    .option("--args <json>", "the arguments as one JSON object (--arg entries win)")
    .option("--dry-run", "print the plan and its plan_id; run nothing")
    .option("--confirm <plan_id>", "confirm a confirm-gated verb with the plan_id of its dry run")
    .option("--allow-write", "let write verbs run")
    .option("--json", "print the result (§6.5) as StableJSON instead of the child's output")
    .option("--no-prompt", "never ask on the terminal")
    .option("--control-plane", "serve control-plane packs too")
    .action(async (pack: string, verb: string | undefined, o: Record<string, unknown>) => {
      const { runCommand } = await import("./hcp/run.js");
      setExit(
        await runCommand({
          pack,
          verb,
          passThrough,
          arg: o["arg"] as string[],
          args: o["args"] as string | undefined,
          dryRun: o["dryRun"] === true,
          confirm: o["confirm"] as string | undefined,
          allowWrite: o["allowWrite"] === true,
          json: o["json"] === true,
          noPrompt: o["prompt"] === false,
          controlPlane: o["controlPlane"] === true,
        }),
      );
    });

  program
    .command("exec")
    .description("Serve newline-delimited JSON requests {id, pack, verb, args, dry_run?, confirm?, stdin?} on stdin, one response line each")
    .argument("<packs...>", "pack folders or folders of packs")
    .option("--concurrency <n>", "requests running at once", "8")
    .option("--allow-write", "let write verbs run")
    .option("--control-plane", "serve control-plane packs too")
    .action(async (paths: string[], o: { concurrency: string; allowWrite?: boolean; controlPlane?: boolean }) => {
      const { execCommand } = await import("./hcp/serve.js");
      setExit(await execCommand(paths, o));
    });

  program
    .command("serve")
    .description("Serve packs to agents: --mcp runs a stdio MCP server")
    .argument("<packs...>", "pack folders or folders of packs")
    .option("--mcp", "the stdio MCP server")
    .option("--allow-write", "let write verbs run")
    .option("--control-plane", "serve control-plane packs too")
    .action(async (paths: string[], o: { mcp?: boolean; allowWrite?: boolean; controlPlane?: boolean }) => {
      const { serveCommand } = await import("./hcp/serve.js");
      setExit(await serveCommand(paths, o));
    });

  program
    .command("list")
    .description("List packs, their verbs and effective policies")
    .argument("<packs...>", "pack folders or folders of packs")
    .option("--json", "StableJSON")
    .option("--allow-write", "show write verbs as runnable")
    .action(async (paths: string[], o: { json?: boolean; allowWrite?: boolean }) => {
      const { listCommand } = await import("./hcp/packs.js");
      print(listCommand(paths, o));
    });

  program
    .command("validate")
    .description("Validate packs: one line per issue and a summary; exit 1 when any pack has an error")
    .argument("<paths...>", "pack folders, surface.json files or folders of packs")
    .option("--json", "StableJSON: {packs: [{path, ok, pack_id, issues, meta}]}")
    .action(async (paths: string[], o: { json?: boolean }) => {
      const { validateCommand } = await import("./hcp/packs.js");
      const report = validateCommand(paths, o);
      print(report.text);
      setExit(report.ok ? 0 : 1);
    });

  program
    .command("meta")
    .description("Print a pack's derived HarnessPackMeta as StableJSON")
    .argument("<pack>", "pack folder or its surface.json")
    .action(async (pack: string) => {
      const { metaCommand } = await import("./hcp/packs.js");
      print(metaCommand(pack));
    });

  program
    .command("skill")
    .description("Print a pack's HARNESS.md")
    .argument("<pack>", "pack folder or its surface.json")
    .action(async (pack: string) => {
      const { skillCommand } = await import("./hcp/packs.js");
      print(skillCommand(pack));
    });

  program
    .command("init")
    .description("Write a pack from a rungrad manifest (surface.json, policy.json, HARNESS.md)")
    .option("--from-manifest <file>", "manifest file, or - for standard input")
    .option("--from-exe <program>", "read the manifest from PROGRAM __rungrad_manifest")
    .option("--bin <program>", "wrap.bin of the pack (default: the --from-exe program, else the tool name)")
    .requiredOption("--out <dir>", "the pack folder to write")
    .option("--force", "write into a non-empty folder, replacing the pack files")
    .option("--json", "StableJSON: {out, pack_id, files, notes}")
    .action(async (o: { fromManifest?: string; fromExe?: string; bin?: string; out: string; force?: boolean; json?: boolean }) => {
      const { initCommand } = await import("./hcp/init.js");
      const r = await initCommand(o);
      print(r.stdout);
      process.stderr.write(r.stderr);
    });
  return program;
}

/** Machine-readable errors when --json is given (the pass-through argv is already cut off). */
function wantsJson(argv: readonly string[]): boolean {
  return argv.includes("--json");
}

/** The one place errors become stderr text and exit codes: `Error: <message>`, or StableJSON with --json. */
function reportError(code: string, message: string, exitCode: number, json: boolean): number {
  process.stderr.write(
    json
      ? stableJSON(
          new Map<string, unknown>([
            ["error", message],
            ["code", code],
            ["exit_code", exitCode],
          ]),
        )
      : `Error: ${message}\n`,
  );
  return exitCode;
}

async function main(argv: string[]): Promise<number> {
  let args = argv;
  const dashes = argv.indexOf("--");
  if (argv[0] === "run" && dashes >= 0) {
    passThrough = argv.slice(dashes + 1);
    args = argv.slice(0, dashes);
  }
  let exit = 0;
  const program = buildProgram((code) => (exit = code));
  const json = wantsJson(args);
  try {
    await program.parseAsync(args, { from: "user" });
    return exit;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.exitCode === 0) return 0;
      return reportError("usage", err.message.replace(/^error: /, ""), 1, json);
    }
    if (err instanceof CliError) return reportError(err.exitCode === 1 ? "usage" : "runtime", err.message, err.exitCode, json);
    const body = errorBody(err);
    return reportError(body.code, body.message, exitCodeOf(body.code), json);
  }
}

process.exitCode = await main(process.argv.slice(2));
