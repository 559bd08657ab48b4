// The scaffold-time manifest: the declarations built into a framework App in memory and read through the framework's manifest builder.

import { App, updateCommand, type CommandSpec } from "../framework/index.js";
import type { ValidManifest } from "../manifest/index.js";
import { GENERATED_VERSION, type CommandDecl, type ProgramDecl } from "./program.js";

/** The framework's update command for the generated tool, with the product's extra examples appended. */
function generatedUpdate(tool: string, extraExamples: readonly string[]): CommandSpec {
  const update = updateCommand({ currentVersion: GENERATED_VERSION, fetchLatest: () => ({ version: GENERATED_VERSION }), toolName: tool });
  update.examples = [...(update.examples ?? []), ...extraExamples];
  return update;
}

/** Handlers do not reach the manifest: every leaf gets a no-op so the in-memory tree has the generated shape. */
function spec(decl: CommandDecl): CommandSpec {
  const { commands, ...rest } = decl;
  return commands ? { ...rest, commands: commands.map(spec) } : { ...rest, run: () => undefined };
}

/** The App the generated src/main.ts builds, without its handlers. */
function inMemoryApp(p: ProgramDecl): App {
  return new App(p.app).addCommand(spec(p.widget), generatedUpdate(p.app.name, p.updateExamples));
}

/** The manifest the generated CLI prints on `__rungrad_manifest`, validated. */
export function scaffoldManifest(p: ProgramDecl): ValidManifest {
  return inMemoryApp(p).manifestDocumentChecked();
}
