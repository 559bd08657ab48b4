// `rungrad skill`: writes .agents/README.md and .agents/skills/<tool>/SKILL.md from a manifest.

import { systemReason } from "../../errno.js";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentMetaDocument } from "../../agentmeta/types.js";
import { FileWriteError, writeFiles } from "../../files.js";
import { ExitCode } from "../../framework/errors.js";
import { renderSkill } from "../../skill/index.js";
import { CliError } from "../errors.js";

export type FileAction = "create" | "overwrite" | "unchanged";

export interface PlannedFile {
  path: string;
  action: FileAction;
}

export interface SkillOptions {
  out: string;
  force: boolean;
  dryRun: boolean;
  includeShort: boolean;
}

/**
 * Plans, then writes. Nothing is written when any existing file differs and
 * --force is absent, or when any write fails: a refusal never leaves a partial result.
 */
export async function writeSkill(doc: AgentMetaDocument, options: SkillOptions): Promise<PlannedFile[]> {
  const files = renderSkill(doc, { includeShort: options.includeShort });
  const planned = await Promise.all(
    files.map(async (file) => ({ ...file, action: await actionFor(join(options.out, file.path), file.content) })),
  );
  const conflicts = planned.filter((f) => f.action === "overwrite");
  if (conflicts.length > 0 && !options.force && !options.dryRun) {
    const names = conflicts.map((f) => join(options.out, f.path)).join(", ");
    throw new CliError(`refusing to overwrite ${names}: it differs from the generated file (use --force to replace it)`);
  }
  if (!options.dryRun) {
    // All or nothing, never through a symbolic link (a link in place of a file is refused, even with --force).
    const changed = planned.filter((f) => f.action !== "unchanged").map((f) => ({ path: f.path, content: f.content }));
    try {
      await writeFiles(options.out, changed, { replace: true });
    } catch (err) {
      if (err instanceof FileWriteError) throw new CliError(err.message, ExitCode.API);
      throw err;
    }
  }
  return planned.map(({ path, action }) => ({ path, action }));
}

/** Only a missing file is "create": a file that cannot be read (or a folder where it would go) is an error, never taken for absent. */
async function actionFor(target: string, content: string): Promise<FileAction> {
  try {
    return (await readFile(target, "utf8")) === content ? "unchanged" : "overwrite";
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "create";
    throw new CliError(`read ${target}: ${systemReason(err)}`);
  }
}

export function renderPlan(planned: PlannedFile[], out: string, dryRun: boolean): string {
  const lines = planned.map((f) => `  ${join(out, f.path)} (${f.action})`);
  const head = dryRun ? `DRY RUN: would write ${planned.filter((f) => f.action !== "unchanged").length} files` : "Skill files";
  return [head, ...lines, ...(dryRun ? ["  no changes were made"] : [])].join("\n") + "\n";
}
