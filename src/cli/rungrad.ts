#!/usr/bin/env node
// The `rungrad` program: manifest validation and formatting, agentmeta projection, skill files.

import { Command, CommanderError } from "commander";
import { stableJSON } from "../json/stable.js";
import { CliError, EXIT_RUNTIME, EXIT_USAGE, formatError } from "./errors.js";
import { formatText, projectText, readManifestText, renderValidation, validateText } from "./rungrad/documents.js";
import { PACKAGE_VERSION } from "./version.js";

interface GlobalOptions {
  json?: boolean;
  dryRun?: boolean;
}

function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions>();
}

function print(text: string): void {
  process.stdout.write(text);
}

function buildProgram(): Command {
  const program = new Command("rungrad")
    .description("Build and score agent-ready CLIs")
    .version(PACKAGE_VERSION, "--version", "Print the version")
    .option("--json", "Output stable JSON instead of the human view")
    .option("--dry-run", "Preview changes without performing them")
    .option("--no-prompt", "Never block on an interactive prompt")
    .option("--quiet", "Suppress non-essential output")
    .option("--config <path>", "Path to the config file")
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .showHelpAfterError(false);

  const manifest = program.command("manifest").description("Check and format rungrad-manifest/1 documents");
  manifest
    .command("validate")
    .description("Validate a rungrad-manifest/1 document (FILE, or - for standard input)")
    .argument("<file>", "manifest file, or - for standard input")
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const report = validateText(await readManifestText({ file }));
      print(globals(cmd).json ? stableJSON(report) : renderValidation(report));
    });
  manifest
    .command("fmt")
    .description("Print the canonical StableJSON of a manifest (wire order, unknown fields dropped)")
    .argument("<file>", "manifest file, or - for standard input")
    .action(async (file: string) => {
      print(formatText(await readManifestText({ file })));
    });

  program
    .command("agentmeta")
    .description("Project a manifest into a rungrad-agentmeta/1 document")
    .argument("[file]", "manifest file, or - for standard input")
    .option("--from-exe <program>", "Read the manifest from PROGRAM __rungrad_manifest")
    .action(async (file: string | undefined, opts: { fromExe?: string }) => {
      print(stableJSON(projectText(await readManifestText({ file, fromExe: opts.fromExe }))));
    });

  program
    .command("skill")
    .description("Write .agents/README.md and .agents/skills/<tool>/SKILL.md from a manifest")
    .argument("[file]", "manifest file, or - for standard input")
    .option("--from-exe <program>", "Read the manifest from PROGRAM __rungrad_manifest")
    .option("--out <dir>", "Repository root to write into", ".")
    .option("--force", "Replace existing files that differ")
    .option("--include-short", "Add each command's short text, sanitised to one line")
    .action(async (file: string | undefined, opts: { fromExe?: string; out: string; force?: boolean; includeShort?: boolean }, cmd: Command) => {
      const { writeSkill, renderPlan } = await import("./rungrad/skill.js");
      const doc = projectText(await readManifestText({ file, fromExe: opts.fromExe }));
      const dryRun = globals(cmd).dryRun === true;
      const planned = await writeSkill(doc, { out: opts.out, force: opts.force === true, dryRun, includeShort: opts.includeShort === true });
      print(globals(cmd).json ? stableJSON({ dry_run: dryRun, files: planned }) : renderPlan(planned, opts.out, dryRun));
    });
  return program;
}

/** Machine-readable errors when --json appears before a `--` terminator (also for parse errors). */
function wantsMachineErrors(argv: string[]): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "--json" || arg === "--json=true") return true;
  }
  return false;
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.exitCode === 0) return 0;
      process.stderr.write(formatError(err.message.replace(/^error: /, ""), EXIT_USAGE, wantsMachineErrors(argv)));
      return EXIT_USAGE;
    }
    if (err instanceof CliError) {
      process.stderr.write(formatError(err.message, err.exitCode, wantsMachineErrors(argv)));
      return err.exitCode;
    }
    // An unexpected failure is still reported as one line, never a stack trace.
    process.stderr.write(formatError(`internal error: ${(err as Error).message}`, EXIT_RUNTIME, wantsMachineErrors(argv)));
    return EXIT_RUNTIME;
  }
}

process.exitCode = await main(process.argv.slice(2));
