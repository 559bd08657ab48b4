#!/usr/bin/env node
// The `rungrad` program, built on our own framework: manifest validation and formatting,
// agentmeta projection, repository skill files.

import { App, type CommandSpec, type Context } from "../framework/index.js";
import { stableJSON } from "../json/stable.js";
import { FROM_EXE, optionalString } from "./flags.js";
import { parseText, projectText, readManifestText, renderValidation, validateText, type ManifestSource } from "./rungrad/documents.js";
import { newCommand } from "./rungrad/new.js";
import { CONFIRM_FLAG, RUNS_A_PROGRAM, wouldRun } from "./rungrad/runs-program.js";
import { scoreCommand } from "./rungrad/score.js";
import { PACKAGE_VERSION } from "./version.js";

const TABLE_JSON = ["table", "json"];

/** FILE (or `-`) from the operands, or --from-exe where the command has it. */
function source(ctx: Context, withExe = false): ManifestSource {
  return { file: ctx.args[0], fromExe: withExe ? optionalString(ctx, FROM_EXE.name) : undefined };
}

/** Prints a JSON document: its StableJSON bytes are both the human and the machine view, in every mode. */
async function writeDocument(ctx: Context, doc: unknown): Promise<void> {
  await ctx.writeOutput({ model: doc, human: () => stableJSON(doc), verbatim: true });
}

const manifestCommand: CommandSpec = {
  use: "manifest",
  short: "Check and format rungrad-manifest/1 documents",
  related: ["rungrad agentmeta"],
  commands: [
    {
      use: "validate <file>",
      short: "Validate a rungrad-manifest/1 document (FILE, or - for standard input)",
      examples: ["rungrad manifest validate manifest.json", "mytool __rungrad_manifest | rungrad manifest validate - --json"],
      related: ["rungrad manifest fmt"],
      outputModes: TABLE_JSON,
      args: { exact: 1 },
      run: async (ctx) => {
        const report = validateText(await readManifestText(source(ctx)));
        await ctx.writeResult(report, () => renderValidation(report));
      },
    },
    {
      use: "fmt <file>",
      short: "Print the canonical StableJSON of a manifest (wire order, unknown fields dropped)",
      examples: ["rungrad manifest fmt manifest.json"],
      related: ["rungrad manifest validate"],
      outputModes: TABLE_JSON,
      args: { exact: 1 },
      run: async (ctx) => {
        const manifest = parseText(await readManifestText(source(ctx)));
        await writeDocument(ctx, manifest);
      },
    },
  ],
};

const agentmetaCommand: CommandSpec = {
  use: "agentmeta [file]",
  short: "Project a manifest into a rungrad-agentmeta/1 document",
  examples: ["rungrad agentmeta manifest.json", "rungrad agentmeta --from-exe ./mytool"],
  related: ["rungrad skill", "rungrad manifest validate"],
  outputModes: TABLE_JSON,
  // --from-exe runs the program it names.
  ...RUNS_A_PROGRAM,
  args: { max: 1 },
  flags: [FROM_EXE, CONFIRM_FLAG],
  run: async (ctx) => {
    const exe = source(ctx, true).fromExe;
    if (ctx.dryRun && exe !== undefined) return wouldRun(ctx, [exe, "__rungrad_manifest"], "to read its manifest");
    const doc = projectText(await readManifestText(source(ctx, true)));
    await writeDocument(ctx, doc);
  },
};

const skillCommand: CommandSpec = {
  use: "skill [file]",
  short: "Write .agents/README.md and .agents/skills/<tool>/SKILL.md from a manifest",
  examples: ["rungrad skill manifest.json --dry-run", "rungrad skill --from-exe ./mytool --out ."],
  related: ["rungrad agentmeta"],
  outputModes: TABLE_JSON,
  // It writes files, and --from-exe runs the program it names (a dry run too: it lists the files that manifest makes).
  ...RUNS_A_PROGRAM,
  args: { max: 1 },
  flags: [
    FROM_EXE,
    CONFIRM_FLAG,
    { name: "out", usage: "Repository root to write into", type: "string", default: "." },
    { name: "force", usage: "Replace existing files that differ", type: "bool" },
    { name: "include-short", usage: "Add each command's short text, sanitised to one line", type: "bool" },
  ],
  run: async (ctx) => {
    const { writeSkill, renderPlan } = await import("./rungrad/skill.js");
    const doc = projectText(await readManifestText(source(ctx, true)));
    const out = ctx.string("out");
    const planned = await writeSkill(doc, { out, force: ctx.bool("force"), dryRun: ctx.dryRun, includeShort: ctx.bool("include-short") });
    await ctx.writeResult({ dry_run: ctx.dryRun, files: planned }, () => renderPlan(planned, out, ctx.dryRun));
  },
};

export function newRungradApp(): App {
  return new App({ name: "rungrad", short: "Build and score agent-ready CLIs", version: PACKAGE_VERSION, unknownSubcommand: "error", scopedGlobals: true }).addCommand(
    agentmetaCommand,
    manifestCommand,
    newCommand,
    scoreCommand,
    skillCommand,
  );
}

void newRungradApp().main();
